// Host names to socket addresses, once at start-up and never on the data path. The release binary
// is static, and glibc's getaddrinfo there needs the NSS shared libraries at run time; c-ares
// reads /etc/hosts, /etc/nsswitch.conf and /etc/resolv.conf itself, so names work the same in the
// static and the sanitizer builds. An IP literal is never looked up.
//
//   core::Resolution r = core::resolve_host("api.internal", 8080);
//   if (!r.error.empty()) { /* one line: the name, the resolver's reason, what to do */ }
//   for (const core::SocketAddress& a : r.addresses) connect(fd, a.sockaddr_ptr(), a.length);
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::core {

// Bounds the whole lookup (every server and retry in /etc/resolv.conf): a start-up that waits
// longer on a dead resolver only delays the error.
inline constexpr double kResolveTimeoutS = 5.0;

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  [[nodiscard]] const sockaddr* sockaddr_ptr() const {
    return reinterpret_cast<const sockaddr*>(&storage);
  }
};

// "127.0.0.1" or "::1" (no brackets, no port).
std::string address_text(const SocketAddress& address);

// True for what a host name may be: dot-separated labels of letters, digits, '-' and '_' (as
// /etc/hosts allows), 253 bytes at most, an optional final dot, and a last label that is not all
// digits (so "1.2.3" or "256.0.0.1" are mistyped IPv4 addresses, not names to look up).
bool is_host_name(std::string_view host);

struct Resolution {
  std::vector<SocketAddress> addresses;  // every IPv4 and IPv6 address, in the resolver's order
  std::string error;                     // "" when at least one address was found
};

// The addresses of `host` (an IP literal, bracketed or not, is returned as is without a lookup)
// with `port` filled in, duplicates removed. Asks for A and AAAA at once (AF_UNSPEC) and waits at
// most `timeout_s`. On failure, `error` is one line naming the host, the resolver's reason and
// what to do next.
Resolution resolve_host(const std::string& host, std::uint16_t port,
                        double timeout_s = kResolveTimeoutS);

}  // namespace ringside::core
