#include "core/socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace ringside::core {
namespace {

[[noreturn]] void fail(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

}  // namespace


bool parse_address(const std::string& host, std::uint16_t port, sockaddr_storage& out,
                   socklen_t& length) {
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof(sockaddr_in);
    return true;
  }
  std::string v6_literal = host;
  if (v6_literal.size() > 2 && v6_literal.front() == '[' && v6_literal.back() == ']') {
    v6_literal = v6_literal.substr(1, v6_literal.size() - 2);
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out);
  if (inet_pton(AF_INET6, v6_literal.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

bool is_ip_literal(const std::string& host) {
  sockaddr_storage address{};
  socklen_t length = 0;
  return parse_address(host, 0, address, length);
}

std::string host_port(const std::string& host, std::uint16_t port) {
  bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

int listen_tcp(const ListenOptions& options) {
  sockaddr_storage address{};
  socklen_t address_length = 0;
  const std::string where = host_port(options.host, options.port);
  if (!parse_address(options.host, options.port, address, address_length)) {
    throw std::system_error(EINVAL, std::generic_category(),
                            "--host " + options.host +
                                " is not an IP address (use e.g. 127.0.0.1, 0.0.0.0 or ::1)");
  }
  const auto* bind_address = reinterpret_cast<const sockaddr*>(&address);
  int fd = socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(errno, "socket for " + where);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (options.reuse_port && !options.join_group && !options.share_port && options.port != 0) {
    // SO_REUSEPORT would let us share the port with another running server (of the same user)
    // without a word. An exclusive bind first makes a busy port an error, as users expect.
    int probe = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) {
      int error = errno;
      close(fd);
      fail(error, "socket for " + where);
    }
    setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(probe, bind_address, address_length);
    int error = errno;
    close(probe);
    if (rc != 0) {
      close(fd);
      fail(error, "bind " + where +
                      " (is another server on that port? pick another with --port, or share it "
                      "with --reuse-port for a rolling restart)");
    }
  }
  if (options.reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (bind(fd, bind_address, address_length) != 0) {
    int error = errno;
    close(fd);
    fail(error, "bind " + where + " (is another server on that port? pick another with --port)");
  }
  if (listen(fd, options.backlog) != 0) {
    int error = errno;
    close(fd);
    fail(error, "listen " + where);
  }
  return fd;
}

std::uint16_t local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

std::uint16_t free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "picking a free port on 127.0.0.1");
  }
  const std::uint16_t port = local_port(fd);
  ::close(fd);
  return port;
}

int accept_nonblocking(int listen_fd) {
  int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd >= 0) set_tcp_nodelay(fd);
  return fd;
}

void set_tcp_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::uint64_t raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

}  // namespace ringside::core
