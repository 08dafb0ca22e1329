#include "harness/measure/kernel_counters.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

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

// Appends one SOCK_DIAG_BY_FAMILY reply for a listener on `port` with `drops` in its meminfo.
void append_reply(std::vector<char>& buffer, int port, std::uint32_t drops) {
  std::uint32_t meminfo[SK_MEMINFO_VARS] = {};
  meminfo[SK_MEMINFO_DROPS] = drops;
  const std::size_t attribute_length = RTA_LENGTH(sizeof meminfo);
  const std::size_t length = NLMSG_LENGTH(sizeof(inet_diag_msg)) + RTA_ALIGN(attribute_length);
  std::vector<char> message(NLMSG_ALIGN(length), 0);
  auto* header = reinterpret_cast<nlmsghdr*>(message.data());
  header->nlmsg_len = static_cast<std::uint32_t>(length);
  header->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  auto* diag = static_cast<inet_diag_msg*>(NLMSG_DATA(header));
  diag->id.idiag_sport = htons(static_cast<std::uint16_t>(port));
  auto* attribute = reinterpret_cast<rtattr*>(diag + 1);
  attribute->rta_len = static_cast<unsigned short>(attribute_length);
  attribute->rta_type = INET_DIAG_SKMEMINFO;
  std::memcpy(RTA_DATA(attribute), meminfo, sizeof meminfo);
  buffer.insert(buffer.end(), message.begin(), message.end());
}

TEST(KernelCounters, SumsTheDropsOfAPortsListeners) {
  std::vector<char> buffer;
  append_reply(buffer, 8080, 5);
  append_reply(buffer, 9090, 7);
  append_reply(buffer, 8080, 2);  // a second SO_REUSEPORT listener
  bool done = false, error = false;
  EXPECT_EQ(sum_listener_drops(buffer.data(), buffer.size(), 8080, done, error), 7u);
  EXPECT_FALSE(done);
  nlmsghdr end{};
  end.nlmsg_len = NLMSG_LENGTH(sizeof(int));
  end.nlmsg_type = NLMSG_DONE;
  std::vector<char> last(NLMSG_ALIGN(end.nlmsg_len), 0);
  std::memcpy(last.data(), &end, sizeof end);
  EXPECT_EQ(sum_listener_drops(last.data(), last.size(), 8080, done, error), 0u);
  EXPECT_TRUE(done);
  EXPECT_FALSE(error);
}

// A listener that never accepts, with a backlog of 1, and eight handshakes at once: the kernel
// drops what its queue cannot hold, and says so for that socket.
TEST(KernelCounters, SeesDropsAtAFullListenQueue) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  const auto before = listener_drops(port);
  ASSERT_TRUE(before.has_value()) << "sock_diag could not be asked";
  EXPECT_EQ(*before, 0u);
  std::vector<int> clients;
  for (int i = 0; i < 8; ++i) {
    const int client = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address);
    clients.push_back(client);
  }
  std::uint64_t drops = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while ((drops = listener_drops(port).value_or(0)) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a counter, bounded
  }
  EXPECT_GT(drops, 0u);
  EXPECT_EQ(listener_drops(port == 65535 ? 1 : port + 1).value_or(0), 0u) << "another port's";
  for (int client : clients) close(client);
  close(listener);
}

TEST(KernelCounters, ReadsThisMachine) {
  EXPECT_TRUE(read_kernel_counters().readable);
}

}  // namespace
}  // namespace ringside::harness
