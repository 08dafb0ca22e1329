// How long each thread of a process tree ran on a CPU and waited for one, from
// /proc/PID/task/TID/schedstat (nanoseconds, unlike stat's clock ticks): the sampler sums the
// loader's, the server-CPU watch the server's, the fairness check counts the server's threads that
// did a real share of a burst's work.
//
//   std::vector<ThreadTimes> before = tree_thread_times(server_pid);
//   ... load ...
//   std::vector<ThreadTimes> after = tree_thread_times(server_pid);   // match them by tid
//
// parse_schedstat is pure and tested against recorded texts.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

struct SchedTimes {
  double run_s = 0;   // on a CPU
  double wait_s = 0;  // runnable, waiting for a CPU
};
// "run_ns wait_ns timeslices" of /proc/.../schedstat.
std::optional<SchedTimes> parse_schedstat(std::string_view text);

struct ThreadTimes {
  pid_t pid = 0;     // its process
  pid_t tid = 0;
  std::string name;  // comm of the thread
  SchedTimes times;
};

// Every live thread of `root` and its descendants now; threads that end while it reads are
// skipped. Empty when root is gone.
std::vector<ThreadTimes> tree_thread_times(pid_t root);

}  // namespace ringside::harness
