// Verifies that the database routes allocate nothing per request in steady state on PostgreSQL:
// their calls, row blocks, operations and parked replies all come from pools, whether requests
// come one at a time or 16 pipelined on a connection. Counts every operator new in the process;
// libpq's own buffers come from malloc and are not ours to count. Needs Debian's PostgreSQL (a
// throwaway cluster is started in-process).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "allocation_counter.hpp"
#include "loopback_client.hpp"
#include "db/postgres_database.hpp"
#include "db/temp_cluster.hpp"
#include "database_server.hpp"

namespace {

using namespace ringside;

// Reads `count` whole responses framed by Content-Length; true when each was a 200. Uses a
// fixed buffer: nothing here allocates either.
class ResponseReader {
 public:
  bool read_ok(int fd, int count) {
    int seen = 0;
    while (seen < count) {
      std::string_view data(buffer_, kept_);
      const std::size_t end = data.find("\r\n\r\n");
      if (end != std::string_view::npos) {
        const std::string_view head = data.substr(0, end);
        const std::size_t field = head.find("Content-Length: ");
        if (field == std::string_view::npos || !head.starts_with("HTTP/1.1 200 ")) return false;
        std::size_t length = 0;
        const char* digits = head.data() + field + 16;
        std::from_chars(digits, head.data() + head.size(), length);
        const std::size_t total = end + 4 + length;
        if (kept_ >= total) {
          std::memmove(buffer_, buffer_ + total, kept_ - total);
          kept_ -= total;
          ++seen;
          continue;
        }
      }
      if (kept_ == sizeof buffer_) return false;
      const ssize_t n = recv(fd, buffer_ + kept_, sizeof buffer_ - kept_, 0);
      if (n <= 0) return false;
      kept_ += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  char buffer_[256 * 1024];
  std::size_t kept_ = 0;
};

constexpr std::string_view kPaths[] = {"/users/17", "/db", "/queries?queries=20", "/fortunes",
                                       "/updates?queries=5"};

// One round: each route alone, then 16 pipelined requests of mixed routes.
bool round_of_requests(int fd, ResponseReader& reader, int repeat) {
  char request[128];
  for (int r = 0; r < repeat; ++r) {
    for (std::string_view path : kPaths) {
      const int n = std::snprintf(request, sizeof request, "GET %.*s HTTP/1.1\r\nHost: t\r\n\r\n",
                                  static_cast<int>(path.size()), path.data());
      if (!test_support::send_all(fd, {request, static_cast<std::size_t>(n)}) || !reader.read_ok(fd, 1)) return false;
    }
    char batch[16 * 64];
    std::size_t size = 0;
    for (int i = 0; i < 16; ++i) {
      const std::string_view path = kPaths[i % 5];
      size += static_cast<std::size_t>(std::snprintf(batch + size, sizeof batch - size,
                                                     "GET %.*s HTTP/1.1\r\nHost: t\r\n\r\n",
                                                     static_cast<int>(path.size()), path.data()));
    }
    if (!test_support::send_all(fd, {batch, size}) || !reader.read_ok(fd, 16)) return false;
  }
  return true;
}

TEST(DatabaseNoAllocation, PostgresRoutesAllocateNothingInSteadyState) {
  db::TempCluster cluster;
  cluster.start();
  const std::string url = cluster.url();

  auto server = test_support::start_database_server(
      [&url](core::EventLoop& loop) { return db::open_postgres_database(url, 2, 5.0, loop); });

  auto reader = std::make_unique<ResponseReader>();
  const int fd = test_support::connect_loopback(server->port(), 20);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(round_of_requests(fd, *reader, 20));  // warm-up: every pool reaches its size

  const std::size_t before = alloc_count::allocations();
  const bool ok = round_of_requests(fd, *reader, 40);
  const std::size_t after = alloc_count::allocations();
  ASSERT_TRUE(ok);
  EXPECT_EQ(after - before, 0u) << "allocations during " << 40 * (5 + 16)
                                << " steady-state database requests";
  close(fd);
  server->stop(false);
  server->wait();
}

}  // namespace
