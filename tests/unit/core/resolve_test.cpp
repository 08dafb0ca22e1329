#include "core/resolve.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>

namespace ringside::core {
namespace {

// Only what needs no resolver: names the test controls are resolved in
// tests/integration/test_host_names.py, inside a network namespace with its own /etc/hosts.

TEST(IsHostName, AcceptsWhatHostsFilesAndDnsHold) {
  for (const char* name : {"localhost", "api.internal", "api.ringside-test", "a", "A-1.b_2.example.",
                           "xn--bcher-kva.example", "host1", "1host", "10.0.0.x", "123abc"}) {
    EXPECT_TRUE(is_host_name(name)) << name;
  }
  const std::string longest_label(63, 'a');
  EXPECT_TRUE(is_host_name(longest_label + ".example"));
}

TEST(IsHostName, RefusesWhatIsNoName) {
  for (const char* name : {"", ".", "..", "a..b", ".a", "a b", "a/b", "a:b", "user@host", "[::1]",
                           "::1", "a%b", "caf\xc3\xa9", "1.2.3", "256.0.0.1", "999.999.999.999",
                           "1.2.3.4.5", "127.0.0.1.", "12345"}) {
    EXPECT_FALSE(is_host_name(name)) << '"' << name << '"';
  }
  EXPECT_FALSE(is_host_name(std::string(64, 'a')));
  std::string too_long;
  while (too_long.size() < 254) too_long += "abcdefgh.";
  EXPECT_FALSE(is_host_name(too_long));
}

TEST(ResolveHost, AnIpLiteralIsReturnedWithoutALookup) {
  Resolution v4 = resolve_host("192.0.2.7", 8080, 0.001);  // no time to ask anyone
  ASSERT_EQ(v4.error, "");
  ASSERT_EQ(v4.addresses.size(), 1u);
  EXPECT_EQ(address_text(v4.addresses[0]), "192.0.2.7");
  EXPECT_EQ(v4.addresses[0].length, sizeof(sockaddr_in));
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in&>(v4.addresses[0].storage).sin_port), 8080);

  for (const char* literal : {"::1", "[::1]"}) {
    Resolution v6 = resolve_host(literal, 443, 0.001);
    ASSERT_EQ(v6.error, "") << literal;
    ASSERT_EQ(v6.addresses.size(), 1u) << literal;
    EXPECT_EQ(address_text(v6.addresses[0]), "::1");
    EXPECT_EQ(v6.addresses[0].storage.ss_family, AF_INET6);
    EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in6&>(v6.addresses[0].storage).sin6_port), 443);
  }
}

TEST(ResolveHost, WhatIsNoNameIsRefusedBeforeAnyLookup) {
  for (const char* host : {"256.0.0.1", "a b", "user@127.0.0.1", ""}) {
    Resolution r = resolve_host(host, 80, 0.001);
    EXPECT_TRUE(r.addresses.empty()) << host;
    EXPECT_NE(r.error.find("not an IP address or a host name"), std::string::npos) << r.error;
  }
}

TEST(AddressText, PrintsBothFamiliesWithoutBrackets) {
  SocketAddress address;
  auto& v4 = reinterpret_cast<sockaddr_in&>(address.storage);
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "10.1.2.3", &v4.sin_addr);
  EXPECT_EQ(address_text(address), "10.1.2.3");
  SocketAddress address6;
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address6.storage);
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
  EXPECT_EQ(address_text(address6), "2001:db8::1");
  EXPECT_EQ(address_text(SocketAddress{}), "");
}

}  // namespace
}  // namespace ringside::core
