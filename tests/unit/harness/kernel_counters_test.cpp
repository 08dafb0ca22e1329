#include "harness/kernel_counters.hpp"

#include <gtest/gtest.h>

namespace ringside::harness {
namespace {

// Recorded from Linux 6.x, cut to the columns around the ones read.
constexpr const char* kNetstat =
    "TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops TCPSynRetrans TCPOrigDataSent\n"
    "TcpExt: 0 0 1234 1240 77 999\n"
    "IpExt: InNoRoutes InTruncatedPkts ListenOverflows\n"
    "IpExt: 0 0 5\n";
constexpr const char* kSnmp =
    "Ip: Forwarding DefaultTTL\n"
    "Ip: 1 64\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 500 480 3 2 20 100000 100100 12 0 42 0\n";

TEST(KernelCounters, ParsesNetstatAndSnmp) {
  KernelCounters counters;
  parse_netstat(kNetstat, counters);
  parse_snmp(kSnmp, counters);
  EXPECT_EQ(counters.listen_overflows, 1234u);  // TcpExt's, not IpExt's column of the same name
  EXPECT_EQ(counters.listen_drops, 1240u);
  EXPECT_EQ(counters.syn_retransmits, 77u);
  EXPECT_EQ(counters.resets_sent, 42u);
}

TEST(KernelCounters, DeltasNeverGoNegative) {
  KernelCounters before, after;
  before.listen_overflows = 10;
  after.listen_overflows = 15;
  before.resets_sent = 9;
  after.resets_sent = 3;  // reset counters (a new network namespace): not a huge number
  const KernelCounters delta = after - before;
  EXPECT_EQ(delta.listen_overflows, 5u);
  EXPECT_EQ(delta.resets_sent, 0u);
}

TEST(KernelCounters, CountsEstablishedSocketsOfALocalPort) {
  // Port 8080 = 1F90. The listening socket (0A), a client-side socket to 8080 (its local port is
  // the ephemeral one), a TIME_WAIT (06) and two established server-side sockets.
  const char* tcp =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1\n"
      "   1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 2 1\n"
      "   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 3 1\n"
      "   3: 0100007F:1F90 0100007F:C351 01 00000000:00000000 00:00000000 00000000     0        0 4 1\n"
      "   4: 0100007F:1F90 0100007F:C352 06 00000000:00000000 00:00000000 00000000     0        0 0 1\n";
  EXPECT_EQ(count_established_in(tcp, 8080), 2u);
  EXPECT_EQ(count_established_in(tcp, 50000), 1u);
  const char* tcp6 =
      "  sl  local_address                         remote_address                        st\n"
      "   0: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D000 01 0\n";
  EXPECT_EQ(count_established_in(tcp6, 8080), 1u);
  EXPECT_EQ(count_established_in("", 8080), 0u);
}

TEST(KernelCounters, ReadsThisMachine) {
  EXPECT_TRUE(read_kernel_counters().readable);
}

}  // namespace
}  // namespace ringside::harness
