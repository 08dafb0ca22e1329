#include "harness/process/http_client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "harness/process/tls_client.hpp"
#include "http/response_parser.hpp"

namespace ringside::harness {
namespace {

using Clock = std::chrono::steady_clock;

// Bodies the checks expect are a few hundred bytes; a contestant sending megabytes is wrong.
constexpr std::size_t kMaxBody = 1 << 20;
// How long, and how many bytes, a close waits for the server's own close (see close()).
constexpr double kCloseLingerS = 1;
constexpr std::size_t kCloseDrainBytes = 4 << 20;

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds));
}

int remaining_ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd item{fd, events, 0};
  while (true) {
    const int ready = poll(&item, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

const std::string* HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (ascii_iequal(key, name)) return &value;
  }
  return nullptr;
}

HttpConnection::HttpConnection() = default;

HttpConnection::~HttpConnection() { close(); }

namespace {

// Reads and drops what the peer still sends until it closes, for a bounded time and size.
void drain_until_closed(int fd) {
  const auto deadline = deadline_after(kCloseLingerS);
  std::size_t drained = 0;
  char chunk[16 * 1024];
  while (drained < kCloseDrainBytes) {
    const ssize_t got = recv(fd, chunk, sizeof chunk, 0);
    if (got > 0) {
      drained += static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0) return;
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait_for(fd, POLLIN, deadline)) return;
  }
}

}  // namespace

// A close with answers still coming (a check that stopped at a wrong one, with 15 pipelined
// answers behind it) or unread in the kernel resets the connection, and the server then reports
// the checker's reset as its own error (Python prints a BrokenPipeError or ConnectionResetError
// traceback per connection). So the checker closes gracefully: it says it is done (FIN), drops
// what the server still sends until the server closes too (bounded), and only then closes.
void HttpConnection::close() {
  if (tls_) {
    tls_->shutdown();  // close_notify first: the server sees a clean end of the TLS stream
    tls_.reset();
  }
  if (fd_ >= 0) {
    if (shutdown(fd_, SHUT_WR) == 0) drain_until_closed(fd_);
    ::close(fd_);
  }
  fd_ = -1;
  buffer_.clear();
}

const TlsFacts* HttpConnection::tls() const { return tls_ ? &tls_->facts() : nullptr; }

bool HttpConnection::connect(const std::string& host, int port, const TlsClientContext* tls,
                             double timeout_s, std::string& error) {
  if (!connect(host, port, timeout_s, error)) return false;
  if (tls == nullptr) return true;
  tls_ = std::make_unique<TlsStream>(*tls, fd_);
  if (tls_->handshake(deadline_after(timeout_s), error)) return true;
  tls_.reset();  // no close_notify on a stream that never began
  close();
  return false;
}

bool HttpConnection::connect(int port, double timeout_s, std::string& error) {
  return connect("127.0.0.1", port, timeout_s, error);
}

bool HttpConnection::connect(const std::string& host, int port, double timeout_s, std::string& error) {
  close();
  sockaddr_storage storage{};
  socklen_t size = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    size = sizeof *v4;
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    size = sizeof *v6;
  } else {
    error = "connect: '" + host + "' is not an IP address";
    return false;
  }
  fd_ = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&storage), size) != 0) {
    if (errno != EINPROGRESS) {
      error = std::string("connect: ") + std::strerror(errno);
      close();
      return false;
    }
    if (!wait_for(fd_, POLLOUT, deadline_after(timeout_s))) {
      error = "connect: no answer within " + std::to_string(timeout_s) + " s";
      close();
      return false;
    }
    int result = 0;
    socklen_t length = sizeof result;
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &result, &length);
    if (result != 0) {
      error = std::string("connect: ") + std::strerror(result);
      close();
      return false;
    }
  }
  return true;
}

bool HttpConnection::send(std::string_view bytes, double timeout_s, std::string& error) {
  const auto deadline = deadline_after(timeout_s);
  if (tls_) return tls_->write_all(bytes, deadline, error);
  while (!bytes.empty()) {
    const ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd_, POLLOUT, deadline)) {
      continue;
    }
    error = sent < 0 && errno != EAGAIN ? std::string("send: ") + std::strerror(errno)
                                        : "send: the server took no bytes within the timeout";
    return false;
  }
  return true;
}

bool HttpConnection::send_bytewise(std::string_view bytes, std::chrono::milliseconds pause,
                                   double timeout_s, std::string& error) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!send(bytes.substr(i, 1), timeout_s, error)) return false;
    // The pause is part of the input: it makes each byte its own segment and read.
    if (i + 1 < bytes.size()) std::this_thread::sleep_for(pause);
  }
  return true;
}

bool HttpConnection::read_bytes(std::size_t count, std::string& bytes, double timeout_s,
                                std::string& error) {
  const Clock::time_point deadline = deadline_after(timeout_s);
  while (buffer_.size() < count) {
    const long got = fill(deadline, error);
    if (got == 0) error = "the server closed the connection";
    if (got <= 0) return false;
  }
  bytes = std::move(buffer_);
  buffer_.clear();
  return true;
}

long HttpConnection::fill(Clock::time_point deadline, std::string& error) {
  char chunk[16 * 1024];
  while (true) {
    const ssize_t got = tls_ ? tls_->read(chunk, sizeof chunk, deadline, error)
                             : recv(fd_, chunk, sizeof chunk, 0);
    if (tls_ && got < 0) return -1;  // error set; the stream waited for the deadline itself
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
      arrival_.last_byte = Clock::now();
      if (arrival_.pieces++ == 0) arrival_.first_byte = arrival_.last_byte;
      return got;
    }
    if (got == 0) return 0;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      error = std::string("recv: ") + std::strerror(errno);
      return -1;
    }
    if (!wait_for(fd_, POLLIN, deadline)) {
      error = "no whole response within the timeout";
      return -1;
    }
  }
}

namespace {

// The head's status, version, headers and framing, as a caller keeps them (the body comes later).
HttpResponse response_of(const http::Response& head) {
  HttpResponse out;
  out.status = head.status;
  out.version_minor = head.version_minor;
  out.keep_alive = head.keep_alive;
  for (const auto& header : head.header_list()) {
    out.headers.emplace_back(std::string(header.name), std::string(header.value));
  }
  out.framing = head.framing == http::BodyFraming::kContentLength ? Framing::kContentLength
                : head.framing == http::BodyFraming::kChunked     ? Framing::kChunked
                : head.body_until_close                           ? Framing::kUntilClose
                                                                  : Framing::kNone;
  return out;
}

}  // namespace

std::size_t HttpConnection::read_head(Clock::time_point deadline, http::Response& head,
                                      std::string& error) {
  while (true) {
    auto parsed = parse_response_head(buffer_, head);
    if (parsed.status == http::ParseStatus::kError) {
      error = std::string(http::describe(parsed.error));
      return 0;
    }
    if (parsed.status == http::ParseStatus::kComplete) {
      if (!head.is_interim()) return parsed.consumed;
      buffer_.erase(0, parsed.consumed);  // 1xx: the final response follows
      continue;
    }
    const long got = fill(deadline, error);
    if (got == 0) error = buffer_.empty() ? "connection closed with no response"
                                          : "connection closed in the middle of a response head";
    if (got <= 0) return 0;
  }
}

// Feeds what is buffered to the body reader; false (and error) on a framing error.
bool HttpConnection::feed_body(http::ResponseBodyReader& reader, HttpResponse& out,
                               std::string& error) {
  // Chunked bodies are fed a byte at a time: the decoder reports how many data bytes a feed
  // held, not where they lie, and with one byte the answer is either none or that byte.
  const bool bytewise = out.framing == Framing::kChunked;
  std::size_t used = 0;
  while (used < buffer_.size() && !reader.done()) {
    const std::size_t length = bytewise ? 1 : buffer_.size() - used;
    auto fed = reader.feed(std::span<const char>(buffer_.data() + used, length));
    if (fed.error != http::ResponseError::kNone) {
      error = std::string(http::describe(fed.error));
      return false;
    }
    if (fed.data_bytes > 0) out.body.append(buffer_, used + fed.consumed - fed.data_bytes,
                                            fed.data_bytes);
    used += fed.consumed;
    if (fed.consumed == 0) break;
  }
  buffer_.erase(0, used);
  return true;
}

bool HttpConnection::read_body(Clock::time_point deadline, const http::Response& head,
                               HttpResponse& out, std::string& error) {
  http::ResponseBodyReader reader(head);
  while (!reader.done()) {
    if (!feed_body(reader, out, error)) return false;
    if (reader.done()) break;
    if (out.body.size() > kMaxBody) {
      error = "response body larger than 1 MiB";
      return false;
    }
    const long got = fill(deadline, error);
    if (got < 0) return false;
    if (got == 0) {
      auto finished = reader.finish_at_close();
      if (finished.error != http::ResponseError::kNone) {
        error = std::string(http::describe(finished.error));
        return false;
      }
      break;
    }
  }
  return true;
}

bool HttpConnection::read_response(HttpResponse& out, double timeout_s, std::string& error) {
  if (fd_ < 0) {
    error = "not connected";
    return false;
  }
  const auto deadline = deadline_after(timeout_s);
  // Bytes already buffered arrived with the last receive; otherwise the next receive is the first.
  arrival_.pieces = buffer_.empty() ? 0 : 1;
  arrival_.first_byte = arrival_.last_byte;
  http::Response head;
  const std::size_t head_bytes = read_head(deadline, head, error);
  if (head_bytes == 0) return false;
  out = response_of(head);  // copied before the head's bytes go: head's views point into them
  buffer_.erase(0, head_bytes);
  return read_body(deadline, head, out, error);
}

std::string get_request(std::string_view path) {
  std::string request = "GET ";
  request += path;
  request += " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  return request;
}

bool fetch(int port, std::string_view path, double timeout_s, HttpResponse& response,
           std::string& error) {
  return fetch("127.0.0.1", port, path, timeout_s, response, error);
}

bool fetch(const std::string& host, int port, std::string_view path, double timeout_s,
           HttpResponse& response, std::string& error) {
  return fetch(host, port, nullptr, path, timeout_s, response, error);
}

bool fetch(const std::string& host, int port, const TlsClientContext* tls, std::string_view path,
           double timeout_s, HttpResponse& response, std::string& error) {
  HttpConnection connection;
  return connection.connect(host, port, tls, timeout_s, error) &&
         connection.send(get_request(path), timeout_s, error) &&
         connection.read_response(response, timeout_s, error);
}

}  // namespace ringside::harness
