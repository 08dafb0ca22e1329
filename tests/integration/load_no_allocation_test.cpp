// Verifies that `ringside load`'s engine allocates nothing per request in steady state: a
// duration run against a ringside server in a forked child (so that only the load engine's
// allocations are counted), with allocations counted between two points of the run (after
// 20,000 and after 60,000 completed requests). Covers keep-alive with pipelining, and
// reconnecting after every response.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "allocation_counter.hpp"
#include "load/load_run.hpp"
#include "hello_server.hpp"

namespace {

using namespace ringside;

// Waits, without allocating, until the run has completed `count` requests; false after 30 s.
bool wait_for_completed(load::LoadRun& run, std::uint64_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (run.progress().completed < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (run.wait_for(std::chrono::milliseconds(5))) return run.progress().completed >= count;
  }
  return true;
}

// A ringside server in a child process; the destructor kills it.
class ChildServer {
 public:
  ChildServer() {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      auto server = test_support::start_hello_server();
      std::uint16_t port = server->port();
      [[maybe_unused]] auto n = write(fds[1], &port, sizeof port);
      while (true) pause();  // until the parent kills us
    }
    close(fds[1]);
    pollfd ready{fds[0], POLLIN, 0};
    if (poll(&ready, 1, 10'000) == 1 && read(fds[0], &port_, sizeof port_) != sizeof port_) port_ = 0;
    close(fds[0]);
  }
  ~ChildServer() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  [[nodiscard]] std::uint16_t port() const { return port_; }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

void expect_steady_state_allocates_nothing(unsigned pipeline, bool keep_alive) {
  ChildServer server;
  ASSERT_NE(server.port(), 0) << "the child server did not start";

  load::LoadConfig config;
  load::Url url;
  std::string error;
  ASSERT_TRUE(load::parse_url("http://127.0.0.1:" + std::to_string(server.port()) + "/", url, error))
      << error;
  load::RequestSpec spec;
  spec.keep_alive = keep_alive;
  config.targets.push_back(load::make_target(url, spec));
  config.connections = 8;
  config.threads = 1;
  config.pipeline = pipeline;
  config.keep_alive = keep_alive;
  config.duration_s = 60;  // bounded; stopped as soon as the window has been measured
  ASSERT_EQ(load::validate(config), "");

  load::LoadRun run(config);
  run.start();
  const std::uint64_t scale = keep_alive ? 1 : 10;  // a connection per request is slower
  ASSERT_TRUE(wait_for_completed(run, 20'000 / scale));
  const std::size_t before = alloc_count::allocations();
  const bool reached = wait_for_completed(run, 60'000 / scale);
  const std::size_t after = alloc_count::allocations();
  run.stop();
  load::LoadResult result = run.finish();
  ASSERT_TRUE(reached);
  EXPECT_EQ(result.stats.errored, 0u);
  EXPECT_EQ(after - before, 0u) << "allocations while " << 40'000 / scale << " requests completed";
}

TEST(LoadNoAllocation, KeepAliveWithPipelining) { expect_steady_state_allocates_nothing(4, true); }

TEST(LoadNoAllocation, NewConnectionPerRequest) { expect_steady_state_allocates_nothing(1, false); }

}  // namespace
