#include "harness/measure/sampler.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace ringside::harness {
namespace {

TEST(Sampler, ParsesStatCpuTicksPastAnAwkwardName) {
  // Fields 14-17 (utime stime cutime cstime) are 100 20 3 4; the name holds ") (" and spaces.
  const char* stat = "4242 (we ird) (name) S 1 4242 4242 0 -1 4194560 500 0 0 0 100 20 3 4 20 0 1 0 "
                     "123 1000000 200 18446744073709551615\n";
  EXPECT_EQ(parse_stat_cpu_ticks(stat), 127u);
  const auto apart = parse_stat_cpu(stat);
  ASSERT_TRUE(apart);
  EXPECT_EQ(apart->own, 120u);
  EXPECT_EQ(apart->children, 7u);
  EXPECT_FALSE(parse_stat_cpu_ticks("4242 (x) S 1 2"));
  EXPECT_FALSE(parse_stat_cpu_ticks("garbage"));
}

TEST(Sampler, ParsesStatusAndSchedstat) {
  const char* status = "Name:\tnginx\nVmHWM:\t    4096 kB\nVmRSS:\t    2048 kB\nThreads:\t1\n";
  EXPECT_EQ(parse_status_kib(status, "VmRSS"), 2048u);
  EXPECT_EQ(parse_status_kib(status, "VmHWM"), 4096u);
  EXPECT_EQ(parse_status_kib(status, "VmSwap"), 0u);
  EXPECT_EQ(parse_status_kib("VmRSSx: 5 kB\n", "VmRSS"), 0u);
  const auto times = parse_schedstat("1500000000 250000000 42\n");
  ASSERT_TRUE(times);
  EXPECT_DOUBLE_EQ(times->run_s, 1.5);
  EXPECT_DOUBLE_EQ(times->wait_s, 0.25);
  EXPECT_FALSE(parse_schedstat("x"));
}

double own_cpu_s() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// A child that reaps a grandchild which burned 0.3 s of CPU: the tree is charged for it (cutime)
// though the grandchild is gone.
TEST(Sampler, TreeCpuIncludesReapedChildren) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      while (own_cpu_s() < 0.3) {
      }
      _exit(0);
    }
    waitpid(grandchild, nullptr, 0);
    if (write(ready[1], "x", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  const TreeUsage usage = measure_tree(child);
  EXPECT_EQ(usage.processes, 1u);
  EXPECT_GE(usage.cpu_s, 0.25);
  EXPECT_GT(usage.rss_kib, 0);
  EXPECT_GE(usage.hwm_kib, usage.rss_kib);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  EXPECT_EQ(measure_tree(child).processes, 0u);
}

TEST(Sampler, SamplesMemoryAndThreadTimes) {
  std::atomic<bool> done{false};
  std::thread busy([&] {
    const double until = own_cpu_s() + 0.2;
    while (!done && own_cpu_s() < until) {
    }
  });
  std::vector<pid_t> threads = own_threads();
  ASSERT_GE(threads.size(), 2u);
  PointSampler sampler(getpid(), 0, threads);
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  busy.join();
  const SamplerFigures figures = sampler.finish();
  EXPECT_GE(figures.samples, 3u);  // the first, at least two ticks, the last
  EXPECT_GT(figures.rss_peak_kib, 0);
  EXPECT_GT(figures.rss_mean_kib, 0);
  EXPECT_LE(figures.rss_mean_kib, figures.rss_peak_kib);
  EXPECT_GT(figures.loader.run_s, 0.05);
  EXPECT_EQ(figures.established_peak, 0u);
}

}  // namespace
}  // namespace ringside::harness

namespace ringside::harness {
namespace {

TEST(Sampler, FindsTheCpuCgroupsStatFile) {
  EXPECT_EQ(cgroup_cpu_stat_paths("4:memory:/x\n3:cpu,cpuacct:/box/a\n0::/\n"),
            (std::vector<std::string>{"/sys/fs/cgroup/cpu,cpuacct/box/a/cpu.stat",
                                      "/sys/fs/cgroup/cpu/box/a/cpu.stat",
                                      "/sys/fs/cgroup/cpu.stat", "/sys/fs/cgroup/unified/cpu.stat"}));
  EXPECT_EQ(cgroup_cpu_stat_paths("1:cpu:/\n"), (std::vector<std::string>{"/sys/fs/cgroup/cpu/cpu.stat"}));
  EXPECT_EQ(cgroup_cpu_stat_paths("0::/user.slice/s\n"),
            (std::vector<std::string>{"/sys/fs/cgroup/user.slice/s/cpu.stat",
                                      "/sys/fs/cgroup/unified/user.slice/s/cpu.stat"}));
  EXPECT_TRUE(cgroup_cpu_stat_paths("").empty());
}

TEST(Sampler, ParsesThrottledTime) {
  EXPECT_DOUBLE_EQ(*parse_throttled_s("nr_periods 10\nnr_throttled 4\nthrottled_time 1500000000\n"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_throttled_s("usage_usec 9\nnr_throttled 1\nthrottled_usec 250000\n"), 0.25);
  EXPECT_FALSE(parse_throttled_s("usage_usec 9\n"));
  EXPECT_FALSE(parse_throttled_s("nr_throttled_time 5\n"));
  EXPECT_GE(cgroup_throttled_s(), 0);
}

}  // namespace
}  // namespace ringside::harness
