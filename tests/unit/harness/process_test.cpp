#include "harness/process/process.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/process/proc_table.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    become_subreaper();
    std::string pattern = fs::temp_directory_path().string() + "/process-test-XXXXXX";
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProcessSpec shell(const std::string& script) {
    ProcessSpec spec;
    spec.argv = {"sh", "-c", script};
    spec.cwd = dir_.string();
    spec.output_path = (dir_ / "out.log").string();
    return spec;
  }
  // Waits (bounded) until the file holds `lines` lines; returns its text.
  std::string await_lines(const std::string& name, int lines) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string text;
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream file(dir_ / name);
      text.assign(std::istreambuf_iterator<char>(file), {});
      if (std::count(text.begin(), text.end(), '\n') >= lines) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return text;
  }
  static bool alive(pid_t pid) {
    ProcEntry entry;
    return read_process(pid, entry) && !entry.zombie();
  }

  fs::path dir_;
};

TEST_F(ProcessTest, RunsInItsOwnGroupWithEnvironmentDirectoryAndOutput) {
  ProcessSpec spec = shell("echo x=$X dir=$PWD; echo err >&2; echo started > ready; sleep 300");
  spec.env = {{"X", "forty-two"}};
  ChildProcess child(spec);
  await_lines("ready", 1);
  ProcEntry entry;
  ASSERT_TRUE(read_process(child.pid(), entry));
  EXPECT_EQ(entry.pgrp, child.pid());  // a group leader
  EXPECT_EQ(entry.ppid, getpid());
  EXPECT_EQ(await_lines("out.log", 2), "x=forty-two dir=" + dir_.string() + "\nerr\n");
  EXPECT_EQ(child.stop(SIGTERM, 20).problem(), "");
}

TEST_F(ProcessTest, PinsToTheCpusAsked) {
  ProcessSpec spec = shell("grep Cpus_allowed_list /proc/self/status");
  spec.cpus = {0};
  CommandResult result = run_command(spec, 20);
  EXPECT_NE(result.output.find("Cpus_allowed_list:\t0\n"), std::string::npos) << result.output;
}

TEST_F(ProcessTest, SaysWhyItCannotStart) {
  ProcessSpec missing = shell("");
  missing.argv = {"no-such-program-for-ringside"};
  try {
    ChildProcess child(missing);
    FAIL() << "started";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot start 'no-such-program-for-ringside': running it failed: No such file or "
                 "directory");
  }
  ProcessSpec nowhere = shell("true");
  nowhere.cwd = (dir_ / "absent").string();
  EXPECT_THROW(ChildProcess child(nowhere), std::runtime_error);
  ProcessSpec bad_cpu = shell("true");
  bad_cpu.cpus = {CPU_SETSIZE - 1};  // no machine has it: sched_setaffinity refuses
  EXPECT_THROW(ChildProcess child(bad_cpu), std::runtime_error);
}

TEST_F(ProcessTest, StopsTheWholeGroupWithTheSignal) {
  // A parent and a child in the group, both waiting; TERM reaches both.
  ChildProcess child(shell("sleep 300 & echo started > ready; wait"));
  await_lines("ready", 1);
  StopResult stopped = child.stop(SIGTERM, 20);
  EXPECT_TRUE(stopped.signal_sufficed);
  EXPECT_EQ(stopped.problem(), "");
  ASSERT_TRUE(stopped.status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*stopped.status));
  EXPECT_FALSE(alive(child.pid()));
}

TEST_F(ProcessTest, KillsWhatIgnoresTheSignalAfterTheGrace) {
  ChildProcess child(shell("trap '' TERM; echo started > ready; while :; do sleep 0.05; done"));
  await_lines("ready", 1);
  StopResult stopped = child.stop(SIGTERM, 0.3);
  EXPECT_FALSE(stopped.signal_sufficed);
  EXPECT_EQ(stopped.problem(), "did not exit within 0.3 s of SIGTERM: killed with SIGKILL");
  ASSERT_TRUE(stopped.status.has_value());
  EXPECT_EQ(WTERMSIG(*stopped.status), SIGKILL);
}

TEST_F(ProcessTest, FindsAndKillsAChildThatLeftTheGroup) {
  // setsid puts the sleeper in its own session and group (before it writes its pid): TERM to the
  // group misses it.
  ChildProcess child(shell("setsid sh -c 'echo $$ > escaped; exec sleep 300' & wait"));
  const pid_t escaped = std::stoi(await_lines("escaped", 1));
  StopResult stopped = child.stop(SIGTERM, 20);
  EXPECT_TRUE(stopped.signal_sufficed);
  ASSERT_EQ(stopped.leftovers.size(), 1u) << stopped.problem();
  EXPECT_EQ(stopped.leftovers[0].command, "sleep");
  EXPECT_EQ(stopped.problem(),
            "left 1 process running after the stop: " + std::to_string(stopped.leftovers[0].pid) +
                " sleep (escaped its process group); killed");
  EXPECT_EQ(stopped.leftovers[0].pid, escaped);
  EXPECT_FALSE(alive(escaped));
}

TEST_F(ProcessTest, FindsAnOrphanThatDoubleForkedAway) {
  // The intermediate shell exits at once: the sleeper is orphaned, comes to us (the subreaper),
  // and has left the group.
  ChildProcess child(shell("(setsid sh -c 'echo $$ > orphan; exec sleep 300' &); echo started > ready;"
                           " while :; do sleep 0.05; done"));
  const pid_t orphan = std::stoi(await_lines("orphan", 1));
  await_lines("ready", 1);
  // Until it is reparented its parent chain still leads to the child; either way it is found.
  StopResult stopped = child.stop(SIGTERM, 20);
  ASSERT_EQ(stopped.leftovers.size(), 1u) << stopped.problem();
  EXPECT_EQ(stopped.leftovers[0].pid, orphan);
  EXPECT_FALSE(alive(orphan));
}

TEST_F(ProcessTest, RunCommandKillsOnTimeoutAndOnStop) {
  CommandResult slow = run_command(shell("sleep 300"), 0.2);
  EXPECT_TRUE(slow.timed_out);
  std::atomic<bool> stop{true};
  CommandResult stopped = run_command(shell("sleep 300"), 60, &stop);
  EXPECT_TRUE(stopped.interrupted);
}

TEST(TailLines, KeepsTheLastNonEmptyLines) {
  EXPECT_EQ(tail_lines("a\n\nb\r\nc  \n\n", 2), "b | c");
  EXPECT_EQ(tail_lines("only", 5), "only");
  EXPECT_EQ(tail_lines("", 3), "");
}

}  // namespace
}  // namespace ringside::harness
