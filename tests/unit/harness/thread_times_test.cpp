#include "harness/process/thread_times.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <thread>

namespace ringside::harness {
namespace {

TEST(ThreadTimes, ParsesSchedstat) {
  const auto times = parse_schedstat("1500000000 250000000 42\n");
  ASSERT_TRUE(times);
  EXPECT_DOUBLE_EQ(times->run_s, 1.5);
  EXPECT_DOUBLE_EQ(times->wait_s, 0.25);
  EXPECT_FALSE(parse_schedstat("x"));
  EXPECT_FALSE(parse_schedstat("1500000000\n"));
}

// This process's tree: each of its threads, by tid, with the CPU a spinning one used.
TEST(ThreadTimes, ReadsEveryThreadOfATree) {
  std::atomic<bool> done{false};
  std::atomic<pid_t> spinner{0};
  std::thread thread([&] {
    // Spins until its own CPU clock has counted 30 ms (however long that takes on a busy
    // machine), then says who it is.
    timespec used{};
    do {
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
    } while (used.tv_sec == 0 && used.tv_nsec < 30'000'000);
    spinner = gettid();
    while (!done) std::this_thread::yield();
  });
  while (spinner == 0) std::this_thread::yield();
  const std::vector<ThreadTimes> threads = tree_thread_times(getpid());
  done = true;
  thread.join();
  const auto main = std::find_if(threads.begin(), threads.end(),
                                 [](const ThreadTimes& t) { return t.tid == getpid(); });
  const auto spun = std::find_if(threads.begin(), threads.end(),
                                 [&](const ThreadTimes& t) { return t.tid == spinner; });
  ASSERT_NE(main, threads.end());
  ASSERT_NE(spun, threads.end());
  EXPECT_EQ(spun->pid, getpid());
  EXPECT_FALSE(main->name.empty());
  EXPECT_GE(spun->times.run_s, 0.029);  // schedstat's run time is the same clock's
  EXPECT_TRUE(tree_thread_times(-1).empty());
}

}  // namespace
}  // namespace ringside::harness
