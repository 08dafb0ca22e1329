#include "load/resolve_url.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/socket.hpp"

namespace ringside::load {
namespace {

core::SocketAddress loopback(const char* ip, std::uint16_t port) {
  core::SocketAddress address;
  EXPECT_TRUE(core::parse_address(ip, port, address.storage, address.length)) << ip;
  return address;
}

Target target_for(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, url, error)) << error;
  return make_target(url, RequestSpec{});
}

// Names themselves are resolved in tests/integration/test_host_names.py (a namespace with its own
// /etc/hosts); here, what needs no resolver.
TEST(ResolveTargets, IpLiteralsAreLeftAsParsed) {
  std::vector<Target> targets{target_for("http://127.0.0.1:8080/a"), target_for("http://[::1]:81/")};
  std::size_t failed = 99;
  EXPECT_EQ(resolve_targets(targets, 1, failed), "");
  EXPECT_EQ(failed, 99u);
  EXPECT_TRUE(targets[0].url.resolved.empty());
  EXPECT_EQ(used_address_text(targets[0].url), "127.0.0.1");
  EXPECT_EQ(used_address_text(targets[1].url), "::1");
  EXPECT_EQ(describe_resolution(targets[0].url), "");
}

TEST(FirstAccepting, SkipsAddressesWhereNothingListens) {
  core::ListenOptions options;
  options.host = "127.0.0.1";
  options.reuse_port = false;
  const int listener = core::listen_tcp(options);
  const std::uint16_t port = core::local_port(listener);
  // Nothing listens on 127.0.0.2 (the whole of 127/8 is loopback on Linux): refused at once.
  const std::vector<core::SocketAddress> addresses{loopback("127.0.0.2", port), loopback("127.0.0.1", port)};
  EXPECT_EQ(core::address_text(first_accepting(addresses, 5)), "127.0.0.1");
  ::close(listener);
  // Nobody accepts: the first, and the run then counts connect errors.
  EXPECT_EQ(core::address_text(first_accepting(addresses, 5)), "127.0.0.2");
  // A lone address is used without trying it.
  EXPECT_EQ(core::address_text(first_accepting({loopback("127.0.0.3", port)}, 5)), "127.0.0.3");
}

TEST(DescribeResolution, NamesEveryAddressAndTheOneUsed) {
  Url url;
  std::string error;
  ASSERT_TRUE(parse_url("http://api.internal:8080/", url, error)) << error;
  url.resolved = {loopback("::1", 8080), loopback("127.0.0.1", 8080)};
  url.address = url.resolved[1].storage;
  url.address_length = url.resolved[1].length;
  EXPECT_EQ(describe_resolution(url), "api.internal resolved to ::1, 127.0.0.1; connections go to 127.0.0.1");
  EXPECT_EQ(used_address_text(url), "127.0.0.1");
}

}  // namespace
}  // namespace ringside::load
