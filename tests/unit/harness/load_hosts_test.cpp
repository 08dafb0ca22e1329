#include "harness/loaders/load_hosts.hpp"

#include <gtest/gtest.h>

#include "harness/config/inventory.hpp"

namespace ringside::harness {
namespace {

TEST(LoadHosts, SharesAddUpExactlyWithTheRemainderFirst) {
  EXPECT_EQ(share_of(10, 3, 0), 4u);
  EXPECT_EQ(share_of(10, 3, 1), 3u);
  EXPECT_EQ(share_of(10, 3, 2), 3u);
  EXPECT_EQ(share_of(0, 2, 1), 0u);
  EXPECT_EQ(share_of(5, 0, 0), 0u);
  for (std::uint64_t total : {1ull, 7ull, 1000ull, 18446744073709551615ull}) {
    for (std::size_t hosts = 1; hosts <= 5; ++hosts) {
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < hosts; ++i) sum += share_of(total, hosts, i);
      EXPECT_EQ(sum, total) << total << " over " << hosts;
    }
  }
}

TEST(LoadHosts, ShellQuoting) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's $HOME; rm"), "'it'\\''s $HOME; rm'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Inventory, ReadsTheGroupWithHostThenGroupThenAllVars) {
  const auto hosts = read_inventory(R"(# a comment
[generators]
load1 ansible_host=10.0.0.21
load2 ansible_host=10.0.0.22 ansible_user=bob ansible_port=2222
load3

[generators:vars]
ansible_user=root
ringside_threads=4

[server]
api ansible_host=10.0.0.10

[all:vars]
ansible_user=nobody
ansible_port=22
)",
                                    "inv.ini", "generators");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].name, "load1");
  EXPECT_EQ(hosts[0].destination, "root@10.0.0.21");
  EXPECT_EQ(hosts[0].port, "22");
  EXPECT_EQ(hosts[1].destination, "bob@10.0.0.22");
  EXPECT_EQ(hosts[1].port, "2222");
  EXPECT_EQ(hosts[2].destination, "root@load3");
}

TEST(Inventory, RefusesWhatItDoesNotRead) {
  auto error_of = [](const std::string& text, const std::string& group = "generators") {
    try {
      read_inventory(text, "inv.ini", group);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("[server]\napi\n"),
            "inv.ini: no [generators] group: put the load hosts under [generators], or set group");
  EXPECT_EQ(error_of("[generators]\n"), "inv.ini: [generators] lists no host");
  EXPECT_EQ(error_of("[generators]\nload[1:3]\n"),
            "inv.ini:2: 'load[1:3]': host ranges and bare variables are not read here; one host per line");
  EXPECT_EQ(error_of("[generators]\nload1 junk\n"), "inv.ini:2: 'junk' after host load1 must be key=value");
  EXPECT_NE(error_of("[load:children]\na\n", "load").find("groups of groups"), std::string::npos);
  EXPECT_EQ(error_of("[load]\nx\n", "load"), "");
}

}  // namespace
}  // namespace ringside::harness
