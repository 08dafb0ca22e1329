#include "core/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace ringside::core {
namespace {

// Closes a descriptor on scope exit.
struct Fd {
  explicit Fd(int value = -1) : fd(value) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int fd;
};

std::string ipv4_text(const sockaddr_storage& address) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
  return text;
}

std::string ipv6_text(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text, sizeof text);
  return text;
}

TEST(ParseAddress, Ipv4Literal) {
  sockaddr_storage address{};
  socklen_t length = 0;
  ASSERT_TRUE(parse_address("192.0.2.7", 8080, address, length));
  EXPECT_EQ(address.ss_family, AF_INET);
  EXPECT_EQ(length, sizeof(sockaddr_in));
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port), 8080);
  EXPECT_EQ(ipv4_text(address), "192.0.2.7");
}

// localhost is a name like any other (core/resolve.hpp looks it up in /etc/hosts), not a literal.
TEST(ParseAddress, LocalhostIsNotALiteral) {
  sockaddr_storage address{};
  socklen_t length = 0;
  EXPECT_FALSE(parse_address("localhost", 80, address, length));
  EXPECT_FALSE(is_ip_literal("localhost"));
}

TEST(ParseAddress, Ipv6LiteralBareAndBracketed) {
  for (const char* host : {"::1", "[::1]"}) {
    sockaddr_storage address{};
    socklen_t length = 0;
    ASSERT_TRUE(parse_address(host, 443, address, length)) << host;
    EXPECT_EQ(address.ss_family, AF_INET6) << host;
    EXPECT_EQ(length, sizeof(sockaddr_in6)) << host;
    EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port), 443) << host;
    EXPECT_EQ(ipv6_text(address), "::1") << host;
  }
  sockaddr_storage address{};
  socklen_t length = 0;
  ASSERT_TRUE(parse_address("2001:db8::a:b", 1, address, length));
  EXPECT_EQ(ipv6_text(address), "2001:db8::a:b");
  ASSERT_TRUE(parse_address("::ffff:127.0.0.1", 1, address, length));
  EXPECT_EQ(address.ss_family, AF_INET6);
}

TEST(ParseAddress, PortZeroAndPortMax) {
  sockaddr_storage address{};
  socklen_t length = 0;
  ASSERT_TRUE(parse_address("0.0.0.0", 0, address, length));
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port), 0);
  ASSERT_TRUE(parse_address("::", 65535, address, length));
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port), 65535);
}

TEST(ParseAddress, RefusesWhatIsNotAnIpLiteral) {
  for (const char* host :
       {"", "example.com", "localhost.", "LOCALHOST ", "1.2.3", "1.2.3.4.5", "256.0.0.1",
        "1.2.3.-4", "999.999.999.999", " 127.0.0.1", "127.0.0.1 ", "127.0.0.1:80", "[127.0.0.1]",
        "[::1", "::1]", "[]", "[[::1]]", "1:2:3:4:5:6:7:8:9", "::fffff", "fe80::1%lo", "::1/128",
        "0x7f.0.0.1"}) {
    sockaddr_storage address{};
    socklen_t length = 0;
    EXPECT_FALSE(parse_address(host, 80, address, length)) << '"' << host << '"';
    EXPECT_FALSE(is_ip_literal(host)) << '"' << host << '"';
  }
}

TEST(IsIpLiteral, AcceptsWhatParseAddressAccepts) {
  for (const char* host : {"127.0.0.1", "0.0.0.0", "::", "::1", "[::1]", "10.1.2.3"}) {
    EXPECT_TRUE(is_ip_literal(host)) << host;
  }
}

TEST(HostPort, BracketsIpv6Once) {
  EXPECT_EQ(host_port("127.0.0.1", 80), "127.0.0.1:80");
  EXPECT_EQ(host_port("localhost", 8080), "localhost:8080");
  EXPECT_EQ(host_port("::1", 443), "[::1]:443");
  EXPECT_EQ(host_port("[::1]", 443), "[::1]:443");
  EXPECT_EQ(host_port("2001:db8::1", 0), "[2001:db8::1]:0");
  EXPECT_EQ(host_port("", 1), ":1");
}

bool has_flag(int fd, int flag) { return (fcntl(fd, F_GETFL) & flag) != 0; }
bool is_cloexec(int fd) { return (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }

// A blocking client connected to 127.0.0.1:port.
int connect_loopback(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(ListenTcp, PortZeroGetsAFreePortThatAccepts) {
  Fd listener(listen_tcp(ListenOptions{}));
  ASSERT_GE(listener.fd, 0);
  EXPECT_TRUE(has_flag(listener.fd, O_NONBLOCK));
  EXPECT_TRUE(is_cloexec(listener.fd));
  const std::uint16_t port = local_port(listener.fd);
  ASSERT_NE(port, 0);

  // Nothing queued yet: a non-blocking accept says so instead of waiting.
  errno = 0;
  EXPECT_EQ(accept_nonblocking(listener.fd), -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << std::strerror(errno);

  Fd client(connect_loopback(port));
  ASSERT_GE(client.fd, 0);
  Fd accepted(accept_nonblocking(listener.fd));
  ASSERT_GE(accepted.fd, 0) << std::strerror(errno);
  EXPECT_TRUE(has_flag(accepted.fd, O_NONBLOCK));
  EXPECT_TRUE(is_cloexec(accepted.fd));
  int nodelay = 0;
  socklen_t size = sizeof nodelay;
  ASSERT_EQ(getsockopt(accepted.fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &size), 0);
  EXPECT_NE(nodelay, 0);

  ASSERT_EQ(write(client.fd, "x", 1), 1);
  char byte = 0;
  pollfd ready{accepted.fd, POLLIN, 0};
  ASSERT_EQ(poll(&ready, 1, 5000), 1);
  EXPECT_EQ(read(accepted.fd, &byte, 1), 1);
  EXPECT_EQ(byte, 'x');
}

TEST(ListenTcp, Ipv6Loopback) {
  ListenOptions options;
  options.host = "::1";
  Fd listener(listen_tcp(options));
  EXPECT_NE(local_port(listener.fd), 0);
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ASSERT_EQ(getsockname(listener.fd, reinterpret_cast<sockaddr*>(&bound), &length), 0);
  EXPECT_EQ(bound.ss_family, AF_INET6);
}

// SO_REUSEPORT would silently share a port with another server of the same user; the exclusive
// probe bind makes a busy port an error that names the address and the flag to change.
TEST(ListenTcp, BusyPortIsAnErrorNamingTheAddress) {
  Fd first(listen_tcp(ListenOptions{}));
  ListenOptions options;
  options.port = local_port(first.fd);
  try {
    Fd second(listen_tcp(options));
    ADD_FAILURE() << "a second server bound port " << options.port << " that is in use";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EADDRINUSE);
    const std::string message = e.what();
    EXPECT_NE(message.find("127.0.0.1:" + std::to_string(options.port)), std::string::npos)
        << message;
    EXPECT_NE(message.find("--port"), std::string::npos) << message;
  }
}

TEST(ListenTcp, JoiningOurOwnGroupSharesThePort) {
  Fd first(listen_tcp(ListenOptions{}));
  ListenOptions options;
  options.port = local_port(first.fd);
  options.join_group = true;
  Fd second(listen_tcp(options));
  EXPECT_EQ(local_port(second.fd), options.port);
}

// A rolling restart: the new server asks to share the port the old one listens on.
TEST(ListenTcp, SharePortJoinsAnotherServersGroup) {
  Fd first(listen_tcp(ListenOptions{}));
  ListenOptions options;
  options.port = local_port(first.fd);
  options.share_port = true;
  Fd second(listen_tcp(options));
  EXPECT_EQ(local_port(second.fd), options.port);
}

TEST(ListenTcp, HostThatIsNotAnAddressNamesTheFlag) {
  ListenOptions options;
  options.host = "example.com";
  try {
    Fd listener(listen_tcp(options));
    ADD_FAILURE() << "listened on a host name";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
    EXPECT_NE(std::string(e.what()).find("--host example.com"), std::string::npos) << e.what();
  }
}

TEST(LocalPort, ZeroForADescriptorThatIsNoSocket) {
  EXPECT_EQ(local_port(-1), 0);
}

TEST(RaiseOpenFileLimit, ReachesTheHardLimit) {
  const std::uint64_t soft = raise_open_file_limit();
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(soft, limit.rlim_cur);
  EXPECT_EQ(limit.rlim_cur, limit.rlim_max);
}

}  // namespace
}  // namespace ringside::core
