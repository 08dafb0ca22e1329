#include "harness/process/cpu_shield.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <string>
#include <vector>

namespace ringside::harness {
namespace {

// Recorded on the 2-core development machine (Linux 6.18).
constexpr const char* kSoftirqStat =
    "14 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 44 7 0 0 20 0 1 0 18 0 0 18446744073709551615 0 "
    "0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
constexpr const char* kShellStat =
    "13382 (we ird) (name) R 13376 13376 10119 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 643739 "
    "3133440 390 18446744073709551615 94737856425984 94737856445865 140724879508768 0 0 0 0 0 0 0 0 "
    "0 17 0 0 0 0 0 0 94737856461872 94737856463488 94738848219136 140724879514041 140724879514061 "
    "140724879514061 140724879515627 0\n";

TEST(CpuShield, ParsesTaskStatFlagsAndStartTime) {
  const auto kernel = parse_task_stat(kSoftirqStat);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->tid, 14);
  EXPECT_EQ(kernel->name, "ksoftirqd/0");
  EXPECT_EQ(kernel->state, 'S');
  EXPECT_EQ(kernel->flags, 69238848u);
  EXPECT_NE(kernel->flags & kPfNoSetAffinity, 0u);
  EXPECT_EQ(kernel->start_time, 18u);

  const auto shell = parse_task_stat(kShellStat);
  ASSERT_TRUE(shell);
  EXPECT_EQ(shell->tid, 13382);
  EXPECT_EQ(shell->name, "we ird) (name");
  EXPECT_EQ(shell->state, 'R');
  EXPECT_EQ(shell->flags & kPfNoSetAffinity, 0u);
  EXPECT_EQ(shell->start_time, 643739u);
}

TEST(CpuShield, RejectsMalformedTaskStat) {
  EXPECT_FALSE(parse_task_stat("garbage"));
  EXPECT_FALSE(parse_task_stat("14 (ksoftirqd/0) S 2 0 0"));
  EXPECT_FALSE(parse_task_stat("x (a) S 2 0 0 0 -1 1 0 0 0 0 0 0 0 0 20 0 1 0 18"));
}

TEST(CpuShield, ReadsCapSysNiceFromCapEff) {
  EXPECT_TRUE(has_cap_sys_nice("Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000001fffeffffff\n"));
  EXPECT_TRUE(has_cap_sys_nice("Name:\tx\nCapEff:\t0000000000800000\n"));
  EXPECT_FALSE(has_cap_sys_nice("Name:\tx\nCapEff:\t0000000000000000\n"));
  EXPECT_FALSE(has_cap_sys_nice("Name:\tx\nCapEff:\t00000000007fffff\n"));
  EXPECT_FALSE(has_cap_sys_nice("Name:\tx\n"));
  EXPECT_FALSE(has_cap_sys_nice("Name:\tx\nCapEff:\tnothex\n"));
}

TEST(CpuShield, WritesCpuListsAsTheKernelDoes) {
  EXPECT_EQ(cpu_list_text({0}), "0");
  EXPECT_EQ(cpu_list_text({3, 0, 1, 2, 5}), "0-3,5");
  EXPECT_EQ(cpu_list_text({1, 1, 4, 6, 7}), "1,4,6-7");
  EXPECT_EQ(cpu_list_text({}), "");
}

TEST(CpuShield, MaskMinusTheServerCpus) {
  const ShieldPlan all = plan_move({0, 1, 2, 3}, {0});
  EXPECT_EQ(all.move, ShieldMove::kMove);
  EXPECT_EQ(all.to, (std::vector<int>{1, 2, 3}));

  const ShieldPlan some = plan_move({0, 2, 5}, {0, 1, 2});
  EXPECT_EQ(some.move, ShieldMove::kMove);
  EXPECT_EQ(some.to, (std::vector<int>{5}));

  EXPECT_EQ(plan_move({1, 3}, {0}).move, ShieldMove::kLeave);
  EXPECT_TRUE(plan_move({1, 3}, {0}).to.empty());
}

TEST(CpuShield, AMaskThatWouldBecomeEmptyIsLeftAsPinned) {
  EXPECT_EQ(plan_move({0}, {0}).move, ShieldMove::kPinnedThere);
  EXPECT_EQ(plan_move({0, 1}, {0, 1, 2}).move, ShieldMove::kPinnedThere);
  EXPECT_TRUE(plan_move({0, 1}, {0, 1}).to.empty());
}

ShieldState sample_state() {
  ShieldState state;
  state.owner = 4242;
  state.server_cpus = {0, 1};
  state.phase = "shielded";
  state.tasks.push_back({100, 100, 5000, {0, 1, 2, 3}, "sshd"});
  state.tasks.push_back({101, 100, 5001, {0, 2}, "we ird \"name\""});
  return state;
}

TEST(CpuShield, StateFileRoundTrips) {
  const ShieldState state = sample_state();
  const ShieldState back = parse_shield_state(shield_state_json(state));
  EXPECT_EQ(back.owner, 4242);
  EXPECT_EQ(back.server_cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(back.phase, "shielded");
  ASSERT_EQ(back.tasks.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.tasks[i].tid, state.tasks[i].tid);
    EXPECT_EQ(back.tasks[i].pid, state.tasks[i].pid);
    EXPECT_EQ(back.tasks[i].start_time, state.tasks[i].start_time);
    EXPECT_EQ(back.tasks[i].cpus, state.tasks[i].cpus);
    EXPECT_EQ(back.tasks[i].name, state.tasks[i].name);
  }
  EXPECT_NE(shield_state_json(state).find("\"cpus\": \"0-3\""), std::string::npos);
}

TEST(CpuShield, ABadStateFileSaysWhatIsWrong) {
  EXPECT_THROW(parse_shield_state("{"), ShieldError);
  EXPECT_THROW(parse_shield_state("{\"owner\": 1}"), ShieldError);
  EXPECT_THROW(parse_shield_state(R"({"owner": 1, "phase": "shielded", "server_cpus": "0",
      "tasks": [{"tid": 5, "pid": 5, "start_time": 9, "cpus": "x"}]})"),
               ShieldError);
  EXPECT_THROW(parse_shield_state(R"({"owner": 1, "phase": "shielded", "server_cpus": "0",
      "tasks": [{"tid": 0, "pid": 5, "start_time": 9, "cpus": "1"}]})"),
               ShieldError);
}

TaskStat live(pid_t tid, std::uint64_t start) {
  TaskStat stat;
  stat.tid = tid;
  stat.state = 'S';
  stat.start_time = start;
  return stat;
}

TEST(CpuShield, RestoresOnlyTheSameTaskWhereTheShieldPutIt) {
  const MovedTask task{100, 100, 5000, {0, 1, 2, 3}, "sshd"};
  const std::vector<int> server{0};
  EXPECT_EQ(decide_restore(task, live(100, 5000), {1, 2, 3}, server), RestoreAction::kRestore);
}

TEST(CpuShield, ARecycledTidIsNeverTouched) {
  const MovedTask task{100, 100, 5000, {0, 1, 2, 3}, "sshd"};
  EXPECT_EQ(decide_restore(task, live(100, 7777), {1, 2, 3}, {0}), RestoreAction::kRecycled);
  EXPECT_EQ(decide_restore(task, live(100, 7777), {0, 1, 2, 3}, {0}), RestoreAction::kRecycled);
}

TEST(CpuShield, AGoneOrChangedTaskIsLeft) {
  const MovedTask task{100, 100, 5000, {0, 1, 2, 3}, "sshd"};
  EXPECT_EQ(decide_restore(task, std::nullopt, {}, {0}), RestoreAction::kGone);
  TaskStat zombie = live(100, 5000);
  zombie.state = 'Z';
  EXPECT_EQ(decide_restore(task, zombie, {1, 2, 3}, {0}), RestoreAction::kGone);
  // It set its own CPUs during the run: its choice stands.
  EXPECT_EQ(decide_restore(task, live(100, 5000), {2}, {0}), RestoreAction::kChanged);
}

TEST(CpuShield, RestoreSummarySaysWhatHappened) {
  RestoreSummary summary;
  summary.restored = 183;
  EXPECT_EQ(summary.text(), "put 183 tasks back on their CPUs");
  summary.gone = 2;
  summary.changed = 1;
  EXPECT_EQ(summary.text(),
            "put 183 tasks back on their CPUs (2 had exited, 1 had changed their CPUs themselves, "
            "left so)");
  summary = {};
  summary.restored = 1;
  EXPECT_EQ(summary.text(), "put 1 task back on its CPUs");
}

TEST(CpuShield, ScopeComesFromTheEnvironment) {
  unsetenv("RINGSIDE_SHIELD_SCOPE");
  EXPECT_TRUE(shield_scope_from_env().whole_machine);
  setenv("RINGSIDE_SHIELD_SCOPE", "none", 1);
  EXPECT_FALSE(shield_scope_from_env().whole_machine);
  EXPECT_EQ(shield_scope_from_env().root, 0);
  setenv("RINGSIDE_SHIELD_SCOPE", "4242", 1);
  EXPECT_EQ(shield_scope_from_env().root, 4242);
  setenv("RINGSIDE_SHIELD_SCOPE", "42x", 1);
  EXPECT_THROW(shield_scope_from_env(), ShieldError);
  unsetenv("RINGSIDE_SHIELD_SCOPE");
}

std::vector<int> affinity(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(pid, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// A child of the test, scoped: moved off CPU 0, listed in the state file, put back after.
TEST(CpuShield, MovesAScopedTreeAndPutsItBack) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs 2 CPUs";
  char folder[] = "/tmp/cpu-shield-test-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  cpu_set_t all;
  CPU_ZERO(&all);
  CPU_SET(0, &all);
  CPU_SET(1, &all);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    sched_setaffinity(0, sizeof all, &all);
    pause();
    _exit(0);
  }
  // Ends the child however the test ends (a failed ASSERT returns early).
  struct Reap {
    pid_t pid;
    ~Reap() {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } reap{child};
  ASSERT_EQ(sched_setaffinity(child, sizeof all, &all), 0);
  {
    CpuShield shield({0}, folder, ShieldScope{false, child});
    ASSERT_TRUE(shield.begin({})) << shield.facts().problem;
    EXPECT_EQ(shield.pass({}), 1u);
    EXPECT_EQ(affinity(child), (std::vector<int>{1}));
    const ShieldState state = parse_shield_state([&] {
      std::ifstream file(std::filesystem::path(folder) / kShieldStateFile);
      return std::string(std::istreambuf_iterator<char>(file), {});
    }());
    EXPECT_EQ(state.phase, "shielded");
    ASSERT_EQ(state.tasks.size(), 1u);
    EXPECT_EQ(state.tasks[0].tid, child);
    EXPECT_EQ(state.tasks[0].cpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(shield.pass({}), 0u) << "a second pass moves nothing new";
    // A second shield on the same folder is refused while this one holds it.
    CpuShield other({0}, folder, ShieldScope{false, child});
    EXPECT_FALSE(other.begin({}));
    EXPECT_NE(other.facts().problem.find("holds it now"), std::string::npos) << other.facts().problem;
    EXPECT_EQ(shield.restore({}).restored, 1u);
    EXPECT_EQ(shield.facts().moved, 1u);
  }
  EXPECT_EQ(affinity(child), (std::vector<int>{0, 1}));
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(folder) / kShieldStateFile));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace ringside::harness
