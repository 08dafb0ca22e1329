// The kernel's view of a port's listening sockets, asked over NETLINK_SOCK_DIAG (inet_diag, what
// `ss -ltn` reads): for each TCP socket in LISTEN state on the port (one per SO_REUSEPORT
// listener, IPv4 and IPv6), the backlog its server passed to listen() as the kernel keeps it
// (capped by net.core.somaxconn: `ss`'s Send-Q), the handshakes waiting in its accept queue
// (Recv-Q), and the connections it dropped (sk_drops). The fairness check reads the backlog;
// the run's point watch the drops.
//
//   std::optional<std::vector<ListenSocket>> sockets = listen_sockets(port);  // none: no sock_diag
//   for (const ListenSocket& s : *sockets) ... s.backlog, s.queued, s.drops
//   std::optional<unsigned> cap = read_somaxconn();
//
// The reply parser is pure and tested against a built netlink buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ringside::harness {

struct ListenSocket {
  int port = 0;
  bool ipv6 = false;
  std::uint32_t backlog = 0;  // idiag_wqueue of a listener: its listen() backlog, as capped
  std::uint32_t queued = 0;   // idiag_rqueue: finished handshakes not yet accepted
  std::uint64_t drops = 0;    // SK_MEMINFO_DROPS; 0 when the reply had no meminfo
};

// The inet_diag_msg replies of one netlink dump read (`length` bytes at `data`): appends to `out`
// those whose source port is `port`; `done` is set at NLMSG_DONE, `error` at NLMSG_ERROR.
void parse_listen_sockets(const void* data, std::size_t length, int port,
                          std::vector<ListenSocket>& out, bool& done, bool& error);

// The listening TCP sockets of `port` now, both families; nothing when sock_diag cannot be asked.
std::optional<std::vector<ListenSocket>> listen_sockets(int port);

// net.core.somaxconn (/proc/sys/net/core/somaxconn), the cap on every listen() backlog; nothing
// when it cannot be read. parse_somaxconn is its pure part.
std::optional<unsigned> parse_somaxconn(std::string_view text);
std::optional<unsigned> read_somaxconn();

}  // namespace ringside::harness
