#include "harness/measure/server_cpu_watch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <unistd.h>

#include <cmath>

namespace ringside::harness {
namespace {

// Recorded from this project's 2-core machine (the all-CPUs line, two CPUs, and what follows).
constexpr const char* kProcStat =
    "cpu  70320 69 39652 1030475 960 0 8256 0 0 0\n"
    "cpu0 33822 22 18555 518442 150 0 4182 7 0 0\n"
    "cpu1 36498 47 21097 512032 809 0 4074 0 0 0\n"
    "intr 1210412 0 0 0 0\n"
    "ctxt 91236123\n";

TEST(ServerCpuWatch, ParsesPerCpuLinesOfProcStat) {
  const auto cpus = parse_proc_stat_cpus(kProcStat);
  ASSERT_EQ(cpus.size(), 2u);  // the all-CPUs line is not a CPU
  EXPECT_EQ(cpus.at(0).user, 33822u);
  EXPECT_EQ(cpus.at(0).nice, 22u);
  EXPECT_EQ(cpus.at(0).system, 18555u);
  EXPECT_EQ(cpus.at(0).softirq, 4182u);
  EXPECT_EQ(cpus.at(0).steal, 7u);
  EXPECT_EQ(cpus.at(0).tasks(), 33822u + 22 + 18555);
  EXPECT_EQ(cpus.at(1).idle, 512032u);
  EXPECT_TRUE(parse_proc_stat_cpus("cpu0 1 2\ncpux 1 2 3 4 5 6 7 8\n").empty());
}

TEST(ServerCpuWatch, ParsesATasksStatPastAnAwkwardName) {
  // ksoftirqd/0 as recorded: utime 31, stime 0, last on CPU 0.
  const auto kernel = parse_task_stat(
      "14 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 31 0 0 0 20 0 1 0 18 0 0 "
      "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->name, "ksoftirqd/0");
  EXPECT_EQ(kernel->ticks, 31u);
  EXPECT_EQ(kernel->processor, 0);
  // A name with ") (" and spaces; utime 100, stime 20, on CPU 1.
  const auto odd = parse_task_stat(
      "4242 (we ird) (x) S 1 4242 4242 0 -1 4194560 500 0 0 0 100 20 3 4 20 0 1 0 123 1000 200 "
      "18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->name, "we ird) (x");
  EXPECT_EQ(odd->ticks, 120u);
  EXPECT_EQ(odd->processor, 1);
  EXPECT_FALSE(parse_task_stat("14 (short) S 2 0 0"));
  EXPECT_FALSE(parse_task_stat("no parentheses"));
}

TaskStat task(const char* name, std::uint64_t ticks, int processor) {
  TaskStat t;
  t.name = name;
  t.ticks = ticks;
  t.processor = processor;
  return t;
}

CpuWatchSnapshot snapshot(std::uint64_t cpu0_tasks, std::uint64_t cpu0_steal) {
  CpuWatchSnapshot s;
  s.cpus[0] = {.user = cpu0_tasks, .softirq = 0, .steal = cpu0_steal};
  s.cpus[1] = {.user = 5000};
  return s;
}

TEST(ServerCpuWatch, OthersAreTheServerCpusTimeLessTheServersAndTheDatabasesPlusSteal) {
  // One second on CPU 0: 100 ticks of task time there, 10 stolen. The server ran 0.5 s, the
  // database 0.2 s: 0.3 s by others, plus 0.1 s stolen.
  CpuWatchSnapshot before = snapshot(1000, 50), after = snapshot(1100, 60);
  before.server_threads = {{10, {2.0, 0.1}}, {11, {1.0, 0.0}}};
  after.server_threads = {{10, {2.4, 0.15}}, {11, {1.05, 0.0}}, {12, {0.05, 0.02}}};  // 12: new
  before.database_threads = {{20, {5.0, 0}}};
  after.database_threads = {{20, {5.2, 0}}};
  before.tasks = {{30, task("python3", 10, 0)}, {31, task("python3", 4, 0)}, {32, task("cc1plus", 0, 1)},
                  {33, task("ksoftirqd/0", 0, 0)}};
  after.tasks = {{30, task("python3", 30, 0)}, {31, task("python3", 9, 0)}, {32, task("cc1plus", 50, 1)},
                 {33, task("ksoftirqd/0", 40, 0)}, {34, task("kworker/0:1", 5, 0)}};
  const ServerCpuFigures f = server_cpu_figures(before, after, {.server_cpus = {0}, .duration_s = 1});
  EXPECT_NEAR(f.others_s, 0.4, 1e-9);
  EXPECT_NEAR(f.steal_s, 0.1, 1e-9);
  EXPECT_NEAR(f.others_share, 0.4, 1e-9);
  EXPECT_NEAR(f.wait_s, 0.05 + 0.02, 1e-9);  // thread 12 born during the point
  // By name, on CPU 0 at the end, largest first; cc1plus ran on CPU 1, ksoftirqd is softirq.
  ASSERT_EQ(f.others.size(), 2u);
  EXPECT_EQ(f.others[0].name, "python3");
  EXPECT_NEAR(f.others[0].cpu_s, 0.25, 1e-9);
  EXPECT_EQ(f.others[1].name, "kworker/0:1");
  EXPECT_NEAR(f.others[1].cpu_s, 0.05, 1e-9);
}

TEST(ServerCpuWatch, NamesShareOutNoMoreThanTheCpusCountersSaw) {
  // 0.2 s of others on CPU 0 by /proc/stat, but a task that moved there late shows 0.6 s.
  CpuWatchSnapshot before = snapshot(1000, 0), after = snapshot(1020, 0);
  before.tasks = {{30, task("cc1plus", 0, 1)}, {31, task("ninja", 0, 0)}};
  after.tasks = {{30, task("cc1plus", 60, 0)}, {31, task("ninja", 20, 0)}};
  const ServerCpuFigures f = server_cpu_figures(before, after, {.server_cpus = {0}, .duration_s = 1});
  EXPECT_NEAR(f.others_s, 0.2, 1e-9);
  ASSERT_EQ(f.others.size(), 2u);
  EXPECT_NEAR(f.others[0].cpu_s, 0.15, 1e-9);  // 0.6 of 0.8, scaled to 0.2
  EXPECT_NEAR(f.others[1].cpu_s, 0.05, 1e-9);
}

TEST(ServerCpuWatch, ASpareCpuIsNotStarvedAndUnreadableIsUnmeasured) {
  CpuWatchSnapshot before = snapshot(1000, 0), after = snapshot(1090, 0);
  before.server_threads = {{10, {1.0, 0}}};
  after.server_threads = {{10, {1.95, 0}}};  // more than /proc/stat's coarse ticks: clamped at 0
  const ServerCpuFigures quiet = server_cpu_figures(before, after, {.server_cpus = {0}, .duration_s = 1});
  EXPECT_DOUBLE_EQ(quiet.others_s, 0);
  EXPECT_DOUBLE_EQ(quiet.others_share, 0);
  EXPECT_TRUE(quiet.others.empty());
  const ServerCpuFigures unread =
      server_cpu_figures(before, CpuWatchSnapshot{}, {.server_cpus = {0}, .duration_s = 1});
  EXPECT_TRUE(std::isnan(unread.others_s));
  EXPECT_TRUE(std::isnan(server_cpu_figures(before, after, {.server_cpus = {}, .duration_s = 1}).others_s));
}

TEST(ServerCpuWatch, AWindowOfAFewTicksIsUnmeasured) {
  // 20 ticks of others in a 1 ms window (a point that failed at once) would read 20000%.
  CpuWatchSnapshot before = snapshot(1000, 0), after = snapshot(1020, 0);
  const ServerCpuFigures blink =
      server_cpu_figures(before, after, {.server_cpus = {0}, .duration_s = 0.001});
  EXPECT_TRUE(std::isnan(blink.others_share));
  EXPECT_TRUE(std::isnan(blink.others_s));
  const ServerCpuFigures tenth =
      server_cpu_figures(before, after, {.server_cpus = {0}, .duration_s = 0.1});
  EXPECT_NEAR(tenth.others_s, 0.2, 1e-9);
}

TEST(ServerCpuWatch, WatchesThisMachine) {
  // A real snapshot pair around a little work of this process's own child-free tree, over a
  // window long enough to be measured (kShortestWatchTicks): the figures are measured (not NaN)
  // and bounded.
  ServerCpuWatch watch({0}, getpid(), -1);
  watch.begin();
  volatile double x = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
  while (std::chrono::steady_clock::now() < until) x = x + 1;
  watch.end();
  const ServerCpuFigures f = watch.figures();
  EXPECT_TRUE(std::isfinite(f.others_s));
  EXPECT_GE(f.others_s, 0);
  EXPECT_GE(f.wait_s, 0);
  EXPECT_EQ(cpus_phrase({0}), "CPU 0");
  EXPECT_EQ(cpus_phrase({0, 2}), "CPUs 0, 2");
}

}  // namespace
}  // namespace ringside::harness
