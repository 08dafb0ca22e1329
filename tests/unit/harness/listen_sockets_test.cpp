#include "harness/process/listen_sockets.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace ringside::harness {
namespace {

// Appends one SOCK_DIAG_BY_FAMILY reply for a listener on `port`, with a meminfo attribute when
// `drops` is set.
void append_reply(std::vector<char>& buffer, int port, std::uint32_t backlog, std::uint32_t queued,
                  std::optional<std::uint32_t> drops, int family = AF_INET) {
  std::uint32_t meminfo[SK_MEMINFO_VARS] = {};
  meminfo[SK_MEMINFO_DROPS] = drops.value_or(0);
  const std::size_t attribute_length = drops ? RTA_LENGTH(sizeof meminfo) : 0;
  const std::size_t length = NLMSG_LENGTH(sizeof(inet_diag_msg)) + RTA_ALIGN(attribute_length);
  std::vector<char> message(NLMSG_ALIGN(length), 0);
  auto* header = reinterpret_cast<nlmsghdr*>(message.data());
  header->nlmsg_len = static_cast<std::uint32_t>(length);
  header->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  auto* diag = static_cast<inet_diag_msg*>(NLMSG_DATA(header));
  diag->idiag_family = static_cast<std::uint8_t>(family);
  diag->id.idiag_sport = htons(static_cast<std::uint16_t>(port));
  diag->idiag_wqueue = backlog;
  diag->idiag_rqueue = queued;
  if (drops) {
    auto* attribute = reinterpret_cast<rtattr*>(diag + 1);
    attribute->rta_len = static_cast<unsigned short>(attribute_length);
    attribute->rta_type = INET_DIAG_SKMEMINFO;
    std::memcpy(RTA_DATA(attribute), meminfo, sizeof meminfo);
  }
  buffer.insert(buffer.end(), message.begin(), message.end());
}

TEST(ListenSockets, ParsesAPortsListenersFromADump) {
  std::vector<char> buffer;
  append_reply(buffer, 8080, 4096, 3, 5);
  append_reply(buffer, 9090, 5, 0, 7);
  append_reply(buffer, 8080, 511, 0, std::nullopt, AF_INET6);  // a second listener, no meminfo
  std::vector<ListenSocket> found;
  bool done = false, error = false;
  parse_listen_sockets(buffer.data(), buffer.size(), 8080, found, done, error);
  EXPECT_FALSE(done);
  EXPECT_FALSE(error);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].backlog, 4096u);
  EXPECT_EQ(found[0].queued, 3u);
  EXPECT_EQ(found[0].drops, 5u);
  EXPECT_FALSE(found[0].ipv6);
  EXPECT_EQ(found[1].backlog, 511u);
  EXPECT_EQ(found[1].drops, 0u);
  EXPECT_TRUE(found[1].ipv6);
}

TEST(ListenSockets, StopsAtDoneAndAtAnError) {
  nlmsghdr end{};
  end.nlmsg_len = NLMSG_LENGTH(sizeof(int));
  end.nlmsg_type = NLMSG_DONE;
  std::vector<char> last(NLMSG_ALIGN(end.nlmsg_len), 0);
  std::memcpy(last.data(), &end, sizeof end);
  std::vector<char> buffer;
  append_reply(buffer, 8080, 128, 0, 0);
  buffer.insert(buffer.end(), last.begin(), last.end());
  append_reply(buffer, 8080, 64, 0, 0);  // after the end: not read
  std::vector<ListenSocket> found;
  bool done = false, error = false;
  parse_listen_sockets(buffer.data(), buffer.size(), 8080, found, done, error);
  EXPECT_TRUE(done);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].backlog, 128u);
  end.nlmsg_type = NLMSG_ERROR;
  std::memcpy(last.data(), &end, sizeof end);
  done = false;
  parse_listen_sockets(last.data(), last.size(), 8080, found, done, error);
  EXPECT_TRUE(error);
  EXPECT_FALSE(done);
}

TEST(ListenSockets, ParsesSomaxconn) {
  EXPECT_EQ(parse_somaxconn("4096\n"), 4096u);
  EXPECT_FALSE(parse_somaxconn(""));
  EXPECT_FALSE(parse_somaxconn("many\n"));
  EXPECT_TRUE(read_somaxconn().has_value()) << "/proc/sys/net/core/somaxconn";
}

// A listener of this process, with a backlog of 7: the kernel reports exactly that.
TEST(ListenSockets, ReadsTheBacklogThisProcessGaveListen) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener, 7), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const auto sockets = listen_sockets(ntohs(address.sin_port));
  ASSERT_TRUE(sockets.has_value()) << "sock_diag could not be asked";
  ASSERT_EQ(sockets->size(), 1u);
  EXPECT_EQ(sockets->front().backlog, 7u);
  EXPECT_EQ(sockets->front().queued, 0u);
  close(listener);
}

}  // namespace
}  // namespace ringside::harness
