// TCP sockets: listeners, accept, options. Start-up failures throw std::system_error with the
// address in the message; per-connection calls return values.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace ringside::core {

struct ListenOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: let the kernel pick a free port
  int backlog = 65535;     // the kernel caps it at net.core.somaxconn
  bool reuse_port = true;  // one listener per worker, the kernel spreads connections
  bool join_group = false;  // a further listener of our own SO_REUSEPORT group on the same port
  // Join the SO_REUSEPORT group of another process already listening on `port` (a rolling
  // restart: the new server listens beside the old one before the old one drains).
  bool share_port = false;
};

// Parses an IPv4 or IPv6 literal, bracketed or not, into a socket address. Names, "localhost"
// included, are resolved once at start-up by core/resolve.hpp, never here.
bool parse_address(const std::string& host, std::uint16_t port, sockaddr_storage& out,
                   socklen_t& length);

// True for an IPv4 or IPv6 literal.
bool is_ip_literal(const std::string& host);

// "127.0.0.1:80" or "[::1]:80", for URLs and messages.
std::string host_port(const std::string& host, std::uint16_t port);

// Binds and listens (non-blocking, close-on-exec). Throws std::system_error naming the address.
int listen_tcp(const ListenOptions& options);

// The port a bound socket got (useful after binding port 0).
std::uint16_t local_port(int fd);

// A free TCP port on 127.0.0.1, for a child process to listen on: bound and released, so another
// process could take it meanwhile (the child then fails to start and says so). Throws
// std::system_error.
std::uint16_t free_loopback_port();

// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC and TCP_NODELAY; returns -1 with errno set.
int accept_nonblocking(int listen_fd);

void set_tcp_nodelay(int fd);

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit.
std::uint64_t raise_open_file_limit();

}  // namespace ringside::core
