#include "harness/measure/machine_facts.hpp"

#include <gtest/gtest.h>

namespace ringside::harness {
namespace {

TEST(MachineFacts, ParsesCpuinfoAndMeminfo) {
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) "
                            "Xeon(R) CPU @ 2.20GHz\nflags\t: fpu\n"),
            "Intel(R) Xeon(R) CPU @ 2.20GHz");
  EXPECT_EQ(parse_cpu_model("processor : 0\nHardware : BCM2835\n"), "BCM2835");
  EXPECT_EQ(parse_cpu_model(""), "");
  EXPECT_EQ(parse_mem_total_kib("MemTotal:        8148400 kB\nMemFree: 1 kB\n"), 8148400u);
}

TEST(MachineFacts, WarnsAboutSharedAndMissingCores) {
  EXPECT_TRUE(cpu_set_warnings({0}, {1}, 2).empty());
  const auto shared = cpu_set_warnings({0, 1}, {1}, 2);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].rfind("server and loader share core 1: ", 0), 0u) << shared[0];
  const auto missing = cpu_set_warnings({0}, {3}, 2);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "CPU 3 is not online here (2 cores): it is not used");
}

TEST(MachineFacts, GathersThisMachine) {
  const MachineFacts facts = gather_machine_facts("0", "1");
  EXPECT_GE(facts.cores, 1u);
  EXPECT_GT(facts.memory_kib, 0u);
  EXPECT_EQ(facts.kernel.rfind("Linux ", 0), 0u);
  EXPECT_EQ(facts.server_cpus, "0");
  EXPECT_EQ(facts.load_cpus, "1");
}

}  // namespace
}  // namespace ringside::harness
