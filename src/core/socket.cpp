#include "core/socket.hpp"

#include <arpa/inet.h>
#include <netdb.h>
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

int listen_tcp(const ListenOptions& options) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  const std::string where = options.host + ":" + port;
  if (int rc = getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    throw std::system_error(EINVAL, std::generic_category(),
                            "cannot resolve --host " + options.host + ": " + gai_strerror(rc));
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    int error = errno;
    freeaddrinfo(found);
    fail(error, "socket for " + where);
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (options.reuse_port && !options.join_group && options.port != 0) {
    // SO_REUSEPORT would let us share the port with another running server (of the same user)
    // without a word. An exclusive bind first makes a busy port an error, as users expect.
    int probe = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(probe, found->ai_addr, found->ai_addrlen);
    int error = errno;
    close(probe);
    if (rc != 0) {
      freeaddrinfo(found);
      close(fd);
      fail(error, "bind " + where + " (is another server on that port? pick another with --port)");
    }
  }
  if (options.reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
    int error = errno;
    freeaddrinfo(found);
    close(fd);
    fail(error, "bind " + where + " (is another server on that port? pick another with --port)");
  }
  freeaddrinfo(found);
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
