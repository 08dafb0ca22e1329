// Verifies that the server allocates nothing per request in steady state: keep-alive requests,
// pipelined batches, requests split across writes, and connection churn, once warmed up; on the
// hello routes, on parked requests, and on the database routes over SQLite (SQLite's own malloc
// is not operator new, and not ours to count).
// Counts every operator new in the process (the client side below uses only stack buffers).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <string>
#include <string_view>

#include "db/sqlite_database.hpp"
#include "database_server.hpp"
#include "hello_server.hpp"
#include "routes/database_routes.hpp"

#include "allocation_counter.hpp"
#include "loopback_client.hpp"

namespace {

using namespace ringside;

constexpr std::string_view kRequest = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
constexpr std::string_view kBody = "Hello World!";

// Reads until `count` responses have arrived; responses end with the body, so count bodies.
bool receive_responses(int fd, int count) {
  char buffer[16384];
  std::size_t kept = 0;
  int seen = 0;
  while (seen < count) {
    ssize_t n = recv(fd, buffer + kept, sizeof buffer - kept, 0);
    if (n <= 0) return false;
    std::string_view view(buffer, kept + static_cast<std::size_t>(n));
    std::size_t at = 0;
    while ((at = view.find(kBody, at)) != std::string_view::npos) {
      ++seen;
      at += kBody.size();
    }
    // Keep a tail that may hold the start of a body cut by this read.
    std::size_t tail = std::min(view.size(), kBody.size() - 1);
    std::memmove(buffer, view.data() + view.size() - tail, tail);
    kept = tail;
  }
  return true;
}

// Reads until `count` responses have arrived, each framed by its Content-Length; false unless
// every one is a 200 (a database route that fails answers 500 or 503).
bool receive_framed_responses(int fd, int count) {
  constexpr std::string_view kLength = "Content-Length: ";
  char buffer[65536];
  std::size_t kept = 0;
  std::size_t body_left = 0;  // of the response whose head was read; 0: a head comes next
  int seen = 0;
  while (seen < count) {
    ssize_t n = recv(fd, buffer + kept, sizeof buffer - kept, 0);
    if (n <= 0) return false;
    const std::size_t size = kept + static_cast<std::size_t>(n);
    std::size_t at = 0;
    while (seen < count) {
      if (body_left > 0) {
        const std::size_t skip = std::min(body_left, size - at);
        body_left -= skip;
        at += skip;
        if (body_left > 0) break;  // the rest of the body is still on its way
        ++seen;
        continue;
      }
      const std::string_view rest(buffer + at, size - at);
      const std::size_t end = rest.find("\r\n\r\n");
      if (end == std::string_view::npos) break;
      const std::string_view head = rest.substr(0, end);
      const std::size_t length = head.find(kLength);
      if (!head.starts_with("HTTP/1.1 200 ") || length == std::string_view::npos) return false;
      body_left = std::strtoul(head.data() + length + kLength.size(), nullptr, 10);
      at += end + 4;
      if (body_left == 0) ++seen;
    }
    std::memmove(buffer, buffer + at, size - at);
    kept = size - at;
  }
  return kept == 0;
}

struct Traffic {
  std::uint16_t port;
  std::string_view request = kRequest;
  bool (*receive)(int fd, int count) = receive_responses;

  bool keep_alive(int fd, int requests) {
    for (int i = 0; i < requests; ++i) {
      if (!test_support::send_all(fd, request) || !receive(fd, 1)) return false;
    }
    return true;
  }
  bool pipelined(int fd, int batches) {
    char batch[16 * 96];
    std::size_t size = 0;
    for (int i = 0; i < 16; ++i) {
      // Alternate with the plain route, so answers wait in the queue behind parked requests.
      std::string_view one = i % 2 == 0 ? request : kRequest;
      std::memcpy(batch + size, one.data(), one.size());
      size += one.size();
    }
    for (int i = 0; i < batches; ++i) {
      if (!test_support::send_all(fd, {batch, size}) || !receive(fd, 16)) return false;
    }
    return true;
  }
  bool split(int fd, int requests) {
    for (int i = 0; i < requests; ++i) {
      if (!test_support::send_all(fd, request.substr(0, 7)) ||
          !test_support::send_all(fd, request.substr(7)) || !receive(fd, 1)) {
        return false;
      }
    }
    return true;
  }
  bool churn(int connections) {
    for (int i = 0; i < connections; ++i) {
      int fd = test_support::connect_loopback(port);
      bool ok = fd >= 0 && keep_alive(fd, 1);
      if (fd >= 0) {
        // Half-close and wait for the server's FIN: it closes (and frees the connection's slot)
        // before that FIN leaves, so the next connection reuses the slot instead of adding one.
        shutdown(fd, SHUT_WR);
        char byte;
        ok = ok && recv(fd, &byte, 1, 0) == 0;
        close(fd);
      }
      if (!ok) return false;
    }
    return true;
  }
  bool all(int fd, int scale) {
    return keep_alive(fd, 100 * scale) && pipelined(fd, 10 * scale) && split(fd, 20 * scale) &&
           churn(5 * scale);
  }
};

TEST(NoAllocation, SteadyStateRequestsAllocateNothing) {
  auto server = test_support::start_hello_server();

  Traffic traffic{server->port()};
  int fd = test_support::connect_loopback(server->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(traffic.all(fd, 4));  // warm-up: pools and connection slots reach their size

  const std::size_t before = alloc_count::allocations();
  const bool ok = traffic.all(fd, 20);
  const std::size_t after = alloc_count::allocations();
  ASSERT_TRUE(ok);
  EXPECT_EQ(after - before, 0u) << "allocations during " << (100 + 160 + 20 + 5) * 20
                                << " steady-state requests";
  close(fd);
  server->stop(false);
  server->wait();
}

// A route that parks its request and answers it from a pooled PendingReply (here at once, from
// inside the handler; a database answers from the same loop later, through the same pools).
server::Reply parked_hello(server::Exchange& exchange) {
  server::PendingReply& pending = exchange.defer();
  http::OutBuffer& body = pending.body();
  body.append(kBody);
  pending.respond({http::Status::kOk, "text/plain", body.view(), {}});
  return server::Reply::later();
}

TEST(NoAllocation, ParkedRequestsAllocateNothing) {
  server::ServerConfig config;
  config.port = 0;
  config.threads = 1;
  server::Router router;
  server::add_hello_routes(router);
  router.add("/parked", server::kGetOrHead, parked_hello);
  auto server = std::make_unique<server::Server>(config, std::move(router));
  server->start();

  constexpr std::string_view kParked = "GET /parked HTTP/1.1\r\nHost: test\r\n\r\n";
  Traffic traffic{server->port(), kParked};
  int fd = test_support::connect_loopback(server->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(traffic.all(fd, 4));

  const std::size_t before = alloc_count::allocations();
  const bool ok = traffic.all(fd, 20);
  const std::size_t after = alloc_count::allocations();
  ASSERT_TRUE(ok);
  EXPECT_EQ(after - before, 0u) << "allocations during parked steady-state requests";
  close(fd);
  server->stop(false);
  server->wait();
}

// The database routes on a seeded SQLite file: each answers inside its handler, from pooled calls
// and row blocks; /updates writes in a transaction too.
TEST(NoAllocation, SqliteDatabaseRoutesAllocateNothing) {
  std::string directory =
      (std::filesystem::temp_directory_path() / "ringside-no-allocation-XXXXXX").string();
  ASSERT_NE(mkdtemp(directory.data()), nullptr);
  const std::string path = directory + "/routes.db";
  db::prepare_sqlite(path);
  {
    auto server = test_support::start_database_server(
        [&path](core::EventLoop& loop) { return db::open_sqlite_database(path, 5, loop); });

    for (std::string_view request :
         {"GET /users/1 HTTP/1.1\r\nHost: test\r\n\r\n", "GET /db HTTP/1.1\r\nHost: test\r\n\r\n",
          "GET /queries?queries=20 HTTP/1.1\r\nHost: test\r\n\r\n",
          "GET /fortunes HTTP/1.1\r\nHost: test\r\n\r\n",
          "GET /updates?queries=5 HTTP/1.1\r\nHost: test\r\n\r\n"}) {
      Traffic traffic{server->port(), request, receive_framed_responses};
      int fd = test_support::connect_loopback(server->port());
      ASSERT_GE(fd, 0);
      ASSERT_TRUE(traffic.all(fd, 2)) << request;  // warm-up

      const std::size_t before = alloc_count::allocations();
      const bool ok = traffic.all(fd, 5);
      const std::size_t after = alloc_count::allocations();
      ASSERT_TRUE(ok) << request;
      EXPECT_EQ(after - before, 0u) << "allocations during steady-state " << request;
      close(fd);
    }
    server->stop(false);
    server->wait();
  }
  std::filesystem::remove_all(directory);
}

// HTTP/2 (h2c with prior knowledge), frame by frame with no heap on the client side: streams many
// at once on one connection, HEADERS split across writes, and connection churn. Counted twice:
// operator new, and the blocks the server's HTTP/2 codec (libnghttp2, through the worker's
// RecyclingAllocator) took from the heap.
class H2Traffic {
 public:
  explicit H2Traffic(std::uint16_t port) : port_(port) {}

  [[nodiscard]] bool open() {
    fd_ = test_support::connect_loopback(port_);
    next_stream_ = 1;
    constexpr std::string_view kPrefaceAndSettings{
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00", 33};
    return fd_ >= 0 && test_support::send_all(fd_, kPrefaceAndSettings);
  }
  void close_connection() {
    ::close(fd_);
    fd_ = -1;
  }

  // `count` GET / streams sent in one write (or each HEADERS frame in two, `split`), then read
  // until each has ended with its body.
  [[nodiscard]] bool streams(int count, bool split = false) {
    char batch[64 * kHeadersFrameSize];
    std::size_t size = 0;
    for (int i = 0; i < count; ++i) {
      write_headers(batch + size, next_stream_);
      next_stream_ += 2;
      size += kHeadersFrameSize;
    }
    if (split) {
      for (std::size_t at = 0; at < size; at += kHeadersFrameSize) {
        if (!test_support::send_all(fd_, {batch + at, 5}) ||
            !test_support::send_all(fd_, {batch + at + 5, kHeadersFrameSize - 5})) {
          return false;
        }
      }
    } else if (!test_support::send_all(fd_, {batch, size})) {
      return false;
    }
    return receive(count);
  }

  [[nodiscard]] bool all(int scale) {
    for (int i = 0; i < 10 * scale; ++i) {
      if (!streams(16) || !streams(1) || !streams(2, true)) return false;
    }
    for (int i = 0; i < scale; ++i) {  // churn: a connection per few streams
      close_connection();
      if (!open() || !streams(3)) return false;
    }
    return true;
  }

 private:
  // HEADERS, END_STREAM | END_HEADERS: :method GET, :scheme http, :path / from the static table,
  // :authority "t" as a literal not indexed (so the server's decoder table never grows).
  static constexpr std::size_t kHeadersFrameSize = 9 + 6;
  static void write_headers(char* at, std::uint32_t stream) {
    const char frame[kHeadersFrameSize] = {0,
                                           0,
                                           6,
                                           0x1,
                                           0x5,
                                           static_cast<char>(stream >> 24),
                                           static_cast<char>(stream >> 16),
                                           static_cast<char>(stream >> 8),
                                           static_cast<char>(stream),
                                           '\x82',
                                           '\x86',
                                           '\x84',
                                           '\x01',
                                           '\x01',
                                           't'};
    std::memcpy(at, frame, sizeof frame);
  }

  // Reads frames until `count` streams have ended, giving the connection's window back as DATA
  // arrives; false when a stream ends in anything but its body.
  [[nodiscard]] bool receive(int count) {
    char buffer[65536];
    std::size_t kept = 0;
    int ended = 0;
    std::uint32_t data_bytes = 0;
    while (ended < count) {
      const ssize_t n = recv(fd_, buffer + kept, sizeof buffer - kept, 0);
      if (n <= 0) return false;
      const std::size_t size = kept + static_cast<std::size_t>(n);
      std::size_t at = 0;
      while (size - at >= 9) {
        const auto* header = reinterpret_cast<const unsigned char*>(buffer + at);
        const std::size_t length = (header[0] << 16) | (header[1] << 8) | header[2];
        if (size - at < 9 + length) break;
        const unsigned char type = header[3];
        const unsigned char flags = header[4];
        if (type == 0x0) {  // DATA
          data_bytes += static_cast<std::uint32_t>(length);
          if (std::string_view(buffer + at + 9, length) != kBody) return false;
          if ((flags & 0x1) != 0) ++ended;
        } else if (type == 0x1 && (flags & 0x1) != 0) {
          return false;  // HEADERS ending the stream: an answer without a body
        } else if (type == 0x3 || type == 0x7) {
          return false;  // RST_STREAM or GOAWAY
        }
        at += 9 + length;
      }
      std::memmove(buffer, buffer + at, size - at);
      kept = size - at;
    }
    // WINDOW_UPDATE on the connection for the DATA read (each stream's own window is fresh).
    const char update[13] = {0,
                             0,
                             4,
                             0x8,
                             0,
                             0,
                             0,
                             0,
                             0,
                             static_cast<char>(data_bytes >> 24),
                             static_cast<char>(data_bytes >> 16),
                             static_cast<char>(data_bytes >> 8),
                             static_cast<char>(data_bytes)};
    return data_bytes == 0 || test_support::send_all(fd_, {update, sizeof update});
  }

  std::uint16_t port_;
  int fd_ = -1;
  std::uint32_t next_stream_ = 1;
};

TEST(NoAllocation, Http2StreamsAllocateNothing) {
  auto server = test_support::start_hello_server();
  H2Traffic traffic(server->port());
  ASSERT_TRUE(traffic.open());
  ASSERT_TRUE(traffic.all(4));  // warm-up: pools, the codec's recycled blocks

  const std::size_t before = alloc_count::allocations();
  const std::uint64_t codec_before = server->h2_heap_allocations();
  const bool ok = traffic.all(20);
  const std::size_t after = alloc_count::allocations();
  const std::uint64_t codec_after = server->h2_heap_allocations();
  ASSERT_TRUE(ok);
  EXPECT_EQ(after - before, 0u) << "operator new during " << (200 * 19 + 20 * 3)
                                << " steady-state HTTP/2 streams";
  EXPECT_EQ(codec_after - codec_before, 0u) << "codec blocks from the heap in the steady state";
  EXPECT_GT(codec_before, 0u) << "the codec's memory did not come through the allocator";
  traffic.close_connection();
  server->stop(false);
  server->wait();
}

// The counter itself: an allocation through any replaceable operator new moves it, so no form can
// slip past the test above (aligned and nothrow forms once did).
struct alignas(64) CacheLine {
  char bytes[64];
};

// Keeps the compiler from proving the pointer unused and eliding the allocation.
void escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

template <typename Allocate, typename Free>
void expect_counted(const char* form, Allocate allocate, Free free) {
  const std::size_t before = alloc_count::allocations();
  void* p = allocate();
  escape(p);
  const std::size_t after = alloc_count::allocations();
  ASSERT_NE(p, nullptr) << form;
  free(p);
  EXPECT_EQ(after - before, 1u) << form << " was not counted";
}

TEST(AllocationCounter, CountsEveryReplaceableForm) {
  constexpr std::size_t kSize = 48;
  constexpr auto kAlign = std::align_val_t{64};
  const std::nothrow_t& nothrow = std::nothrow;
  expect_counted("new", [&] { return ::operator new(kSize); },
                 [](void* p) { ::operator delete(p); });
  expect_counted("new[]", [&] { return ::operator new[](kSize); },
                 [](void* p) { ::operator delete[](p); });
  expect_counted("new nothrow", [&] { return ::operator new(kSize, nothrow); },
                 [&](void* p) { ::operator delete(p, nothrow); });
  expect_counted("new[] nothrow", [&] { return ::operator new[](kSize, nothrow); },
                 [&](void* p) { ::operator delete[](p, nothrow); });
  expect_counted("new aligned", [&] { return ::operator new(kSize, kAlign); },
                 [&](void* p) { ::operator delete(p, kAlign); });
  expect_counted("new[] aligned", [&] { return ::operator new[](kSize, kAlign); },
                 [&](void* p) { ::operator delete[](p, kSize, kAlign); });
  expect_counted("new aligned nothrow", [&] { return ::operator new(kSize, kAlign, nothrow); },
                 [&](void* p) { ::operator delete(p, kAlign, nothrow); });
  expect_counted("new[] aligned nothrow", [&] { return ::operator new[](kSize, kAlign, nothrow); },
                 [&](void* p) { ::operator delete[](p, kAlign, nothrow); });
  // And as new-expressions pick them: an over-aligned type goes to the aligned forms.
  expect_counted("new T (over-aligned)", [] { return static_cast<void*>(new CacheLine); },
                 [](void* p) { delete static_cast<CacheLine*>(p); });
  expect_counted("new T[] (over-aligned)", [] { return static_cast<void*>(new CacheLine[3]); },
                 [](void* p) { delete[] static_cast<CacheLine*>(p); });
  expect_counted("new (nothrow) T (over-aligned)",
                 [] { return static_cast<void*>(new (std::nothrow) CacheLine); },
                 [](void* p) { delete static_cast<CacheLine*>(p); });
  const auto* line = static_cast<const CacheLine*>(::operator new(sizeof(CacheLine), kAlign));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(line) % 64, 0u);
  ::operator delete(const_cast<CacheLine*>(line), kAlign);
}

}  // namespace
