// What the kernel did for the TCP connections of a point: listen-queue overflows and drops, SYN
// retransmits, resets sent (system-wide counters of /proc/net/netstat and /proc/net/snmp, read
// before and after a point), and how many connections a port really has established (from
// /proc/net/tcp and tcp6). Parsers are pure and tested against recorded /proc texts.
//
//   KernelCounters before = read_kernel_counters();
//   ... the point ...
//   KernelCounters delta = read_kernel_counters() - before;
//   std::uint64_t established = count_established(port);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringside::harness {

struct KernelCounters {
  std::uint64_t listen_overflows = 0;  // TcpExt ListenOverflows: accept queue full
  std::uint64_t listen_drops = 0;      // TcpExt ListenDrops: SYNs dropped at a listener
  std::uint64_t syn_retransmits = 0;   // TcpExt TCPSynRetrans
  std::uint64_t resets_sent = 0;       // Tcp OutRsts
  bool readable = true;                // false when /proc/net could not be read

  // Counters only grow; a wrapped or reset counter gives 0 rather than a huge number.
  KernelCounters operator-(const KernelCounters& earlier) const;
};

// The "TcpExt:" name and value lines of /proc/net/netstat.
void parse_netstat(std::string_view text, KernelCounters& counters);
// The "Tcp:" name and value lines of /proc/net/snmp.
void parse_snmp(std::string_view text, KernelCounters& counters);
KernelCounters read_kernel_counters();

// Connections dropped at the listening sockets of `port` (every one, for SO_REUSEPORT servers):
// their sk_drops, which the kernel raises with ListenDrops when the accept queue is full or a
// handshake cannot be queued, read over NETLINK_SOCK_DIAG (INET_DIAG_SKMEMINFO,
// process/listen_sockets.hpp). Unlike the machine-wide counters, this is the server's own.
// Nothing when sock_diag cannot be asked.
std::optional<std::uint64_t> listener_drops(int port);
// The part of it that is pure: the sum of SK_MEMINFO_DROPS over the inet_diag_msg replies in a
// netlink dump whose source port is `port`; `done` is set at NLMSG_DONE.
std::uint64_t sum_listener_drops(const void* data, std::size_t length, int port, bool& done,
                                 bool& error);

// Sockets in /proc/net/tcp(6) format whose local port is `port` and whose state is ESTABLISHED.
std::uint64_t count_established_in(std::string_view proc_net_tcp, int port);
// Both files, now.
std::uint64_t count_established(int port);

}  // namespace ringside::harness
