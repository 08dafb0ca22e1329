#include "core/event_loop.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace ringside::core {
namespace {

using std::chrono::milliseconds;

// Waits long enough for an event that is already pending; returns as soon as it is delivered.
constexpr Duration kGenerousWait = std::chrono::seconds(5);
constexpr Duration kNoWait = Duration::zero();

class RecordingHandler final : public IoHandler {
 public:
  void on_io(IoEvents events) override { received.push_back(events); }
  std::vector<IoEvents> received;
};

// Both ends of a non-blocking AF_UNIX stream socket pair, closed on scope exit.
class SocketPair {
 public:
  SocketPair() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      ADD_FAILURE() << "socketpair failed, errno " << errno;
      return;
    }
    local = fds[0];
    peer = fds[1];
  }
  ~SocketPair() {
    close_local();
    close_peer();
  }
  void close_local() { close_fd(local); }
  void close_peer() { close_fd(peer); }

  int local = -1;
  int peer = -1;

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

void send_bytes(int fd, std::string_view bytes) {
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

std::size_t drain(int fd) {
  char buffer[4096];
  std::size_t total = 0;
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) total += static_cast<std::size_t>(n);
  return total;
}

TEST(EventLoop, NothingPendingMeansNoEvents) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  EXPECT_TRUE(handler.received.empty());
}

TEST(EventLoop, DeliversReadableToTheHandler) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  send_bytes(pair.peer, "ping");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_EQ(handler.received[0], kReadable);
}

TEST(EventLoop, EdgeTriggeredReportsEachArrivalOnce) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  send_bytes(pair.peer, "first");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  // The bytes are still unread, but no new edge happened.
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  EXPECT_EQ(handler.received.size(), 1u);

  send_bytes(pair.peer, "second");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_EQ(handler.received.size(), 2u);
  EXPECT_EQ(drain(pair.local), 11u);
}

TEST(EventLoop, LevelTriggeredRepeatsUntilDrained) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable, &handler));
  send_bytes(pair.peer, "data");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_EQ(loop.run_once(kNoWait), 1);
  EXPECT_EQ(handler.received.size(), 2u);
  EXPECT_EQ(drain(pair.local), 4u);
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  EXPECT_EQ(handler.received.size(), 2u);
}

TEST(EventLoop, DeliversWritableWhenSendBufferHasRoom) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kWritable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_EQ(handler.received[0], kWritable);
}

TEST(EventLoop, WritableEdgeAgainAfterFullBufferDrains) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kWritable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);

  char chunk[4096] = {};
  while (write(pair.local, chunk, sizeof chunk) > 0) {
  }
  ASSERT_EQ(errno, EAGAIN);
  EXPECT_EQ(loop.run_once(kNoWait), 0);  // full: not writable
  drain(pair.peer);
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_EQ(handler.received.back(), kWritable);
}

TEST(EventLoop, ReportsPeerClose) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  pair.close_peer();
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  // End of stream is also readable: read() returns 0.
  EXPECT_EQ(handler.received[0] & (kReadable | kPeerClosed), kReadable | kPeerClosed);
}

TEST(EventLoop, ReportsPeerHalfClose) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  ASSERT_EQ(shutdown(pair.peer, SHUT_WR), 0);
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_TRUE(handler.received[0] & kPeerClosed);
  EXPECT_FALSE(handler.received[0] & kError);
}

TEST(EventLoop, PipeWriterClosedIsPeerClosedOnReadEnd) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  EventLoop loop;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(fds[0], kReadable | kEdgeTriggered, &handler));
  close(fds[1]);
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_TRUE(handler.received[0] & kPeerClosed);
  close(fds[0]);
}

TEST(EventLoop, PipeReaderClosedIsErrorOnWriteEnd) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  EventLoop loop;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(fds[1], kWritable | kEdgeTriggered, &handler));
  close(fds[0]);
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_TRUE(handler.received[0] & kError);
  close(fds[1]);
}

TEST(EventLoop, ModifyChangesInterest) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kNoWait), 0);  // writable, but nobody asked
  ASSERT_TRUE(loop.modify(pair.local, kReadable | kWritable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  ASSERT_EQ(handler.received.size(), 1u);
  EXPECT_EQ(handler.received[0], kWritable);
}

TEST(EventLoop, ModifyCanSwitchHandler) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler first, second;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &first));
  ASSERT_TRUE(loop.modify(pair.local, kReadable | kEdgeTriggered, &second));
  send_bytes(pair.peer, "x");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_TRUE(first.received.empty());
  EXPECT_EQ(second.received.size(), 1u);
}

TEST(EventLoop, UnwatchedFdDeliversNothing) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  loop.unwatch(pair.local);
  send_bytes(pair.peer, "ignored");
  pair.close_peer();
  EXPECT_EQ(loop.run_once(milliseconds(20)), 0);
  EXPECT_TRUE(handler.received.empty());
}

TEST(EventLoop, HandlerMayUnwatchAndCloseItsFd) {
  class ClosingHandler final : public IoHandler {
   public:
    ClosingHandler(EventLoop& loop, int& fd) : loop_(loop), fd_(fd) {}
    void on_io(IoEvents) override {
      ++calls;
      loop_.unwatch(fd_);
      close(fd_);
      fd_ = -1;
    }
    int calls = 0;

   private:
    EventLoop& loop_;
    int& fd_;
  };
  EventLoop loop;
  SocketPair pair;
  ClosingHandler handler(loop, pair.local);
  ASSERT_TRUE(loop.watch(pair.local, kReadable, &handler));  // level-triggered: would repeat
  send_bytes(pair.peer, "bye");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  EXPECT_EQ(handler.calls, 1);
  EXPECT_EQ(pair.local, -1);
}

TEST(EventLoop, DispatchesEachFdToItsOwnHandler) {
  EventLoop loop;
  SocketPair a, b, quiet;
  RecordingHandler on_a, on_b, on_quiet;
  ASSERT_TRUE(loop.watch(a.local, kReadable | kEdgeTriggered, &on_a));
  ASSERT_TRUE(loop.watch(b.local, kReadable | kEdgeTriggered, &on_b));
  ASSERT_TRUE(loop.watch(quiet.local, kReadable | kEdgeTriggered, &on_quiet));
  send_bytes(a.peer, "to a");
  send_bytes(b.peer, "to b");
  int delivered = 0;
  while (delivered < 2) {
    int n = loop.run_once(kGenerousWait);
    ASSERT_GT(n, 0) << "events were pending but none came within the wait";
    delivered += n;
  }
  EXPECT_EQ(delivered, 2);
  EXPECT_EQ(on_a.received, std::vector<IoEvents>{kReadable});
  EXPECT_EQ(on_b.received, std::vector<IoEvents>{kReadable});
  EXPECT_TRUE(on_quiet.received.empty());
}

TEST(EventLoop, RefusesBadRegistrations) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  errno = 0;
  EXPECT_FALSE(loop.watch(-1, kReadable, &handler));
  EXPECT_EQ(errno, EBADF);
  ASSERT_TRUE(loop.watch(pair.local, kReadable, &handler));
  errno = 0;
  EXPECT_FALSE(loop.watch(pair.local, kReadable, &handler));
  EXPECT_EQ(errno, EEXIST);
  errno = 0;
  EXPECT_FALSE(loop.modify(pair.peer, kReadable, &handler));
  EXPECT_EQ(errno, ENOENT);
}

TEST(EventLoop, RunOnceTimesOutAfterMaxWaitWhenIdle) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable, &handler));
  constexpr auto kWait = milliseconds(30);
  const TimePoint before = Clock::now();
  EXPECT_EQ(loop.run_once(kWait), 0);
  const TimePoint after = Clock::now();
  EXPECT_GE(after - before, kWait - milliseconds(1));
  EXPECT_LT(after - before, std::chrono::seconds(5));
  // now() was refreshed by the turn.
  EXPECT_GE(loop.now(), before + kWait - milliseconds(1));
  EXPECT_LE(loop.now(), after);
}

TEST(EventLoop, RunOnceReturnsAtOnceWhenEventIsPending) {
  EventLoop loop;
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable, &handler));
  send_bytes(pair.peer, "now");
  const TimePoint before = Clock::now();
  EXPECT_EQ(loop.run_once(std::chrono::seconds(30)), 1);
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(5));
}

// epoll_pwait2: a sub-millisecond wait is honoured, neither skipped (a busy loop) nor rounded up
// to a whole millisecond (which would make every -R send late).
TEST(EventLoop, SubMillisecondWaitIsHonoured) {
  EventLoop loop;
  const TimePoint before = Clock::now();
  EXPECT_EQ(loop.run_once(std::chrono::microseconds(300)), 0);
  EXPECT_GE(Clock::now() - before, std::chrono::microseconds(300));
}

TEST(EventLoop, NegativeWaitDoesNotBlock) {
  EventLoop loop;
  const TimePoint before = Clock::now();
  EXPECT_EQ(loop.run_once(milliseconds(-50)), 0);
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(1));
}

TEST(EventLoop, RefreshNowAdvancesTime) {
  EventLoop loop;
  const TimePoint first = loop.now();
  loop.refresh_now();
  EXPECT_GE(loop.now(), first);
  EXPECT_LE(loop.now(), Clock::now());
}

// Turns an idle loop takes until `span` has passed on the clock, waiting `wait` per turn; stops
// counting at kTurnCap, which only a loop that does not wait at all reaches.
constexpr int kTurnCap = 10'000;
int idle_turns_within(EventLoop& loop, Duration span, Duration wait) {
  const TimePoint until = Clock::now() + span;
  int turns = 0;
  while (Clock::now() < until && turns < kTurnCap) {
    EXPECT_EQ(loop.run_once(wait), 0);
    ++turns;
  }
  return turns;
}

// A sandbox or kernel that refuses epoll_pwait2: seccomp profiles answer EPERM (or EINVAL), kernels
// before 5.11 ENOSYS. The loop must fall back to epoll_wait and still wait, not return at once
// every turn (a loop at 100% CPU). Counted in turns, so a slow machine only makes fewer.
class RefusedPwait2 : public ::testing::TestWithParam<int> {};

TEST_P(RefusedPwait2, IdleLoopStillWaitsForItsTimeout) {
  EventLoop loop(EventLoop::RefusePwait2ForTests{GetParam()});
  // 20 ms waits over 100 ms: 5 turns (6 with a boundary), never hundreds.
  EXPECT_LE(idle_turns_within(loop, milliseconds(100), milliseconds(20)), 6);
}

TEST_P(RefusedPwait2, SubMillisecondWaitIsRoundedUpNotDown) {
  EventLoop loop(EventLoop::RefusePwait2ForTests{GetParam()});
  // epoll_wait counts whole milliseconds: 300 us rounded down to 0 would spin until the deadline.
  EXPECT_LE(idle_turns_within(loop, milliseconds(20), std::chrono::microseconds(300)), 21);
}

TEST_P(RefusedPwait2, EventsAreStillDelivered) {
  EventLoop loop(EventLoop::RefusePwait2ForTests{GetParam()});
  SocketPair pair;
  RecordingHandler handler;
  ASSERT_TRUE(loop.watch(pair.local, kReadable | kEdgeTriggered, &handler));
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  send_bytes(pair.peer, "after the fallback");
  EXPECT_EQ(loop.run_once(kGenerousWait), 1);
  EXPECT_EQ(handler.received, std::vector<IoEvents>{kReadable});
}

std::string errno_name(const ::testing::TestParamInfo<int>& refusal) {
  switch (refusal.param) {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    default: return std::to_string(refusal.param);
  }
}

INSTANTIATE_TEST_SUITE_P(EventLoop, RefusedPwait2, ::testing::Values(EPERM, ENOSYS, EINVAL),
                         errno_name);

// Any other failure means the loop cannot work; swallowing it made every turn empty and silent.
TEST(EventLoop, OtherWaitFailuresAreReportedNotSwallowed) {
  for (int error : {EBADF, EFAULT}) {
    EventLoop loop(EventLoop::RefusePwait2ForTests{error});
    try {
      loop.run_once(kNoWait);
      ADD_FAILURE() << "run_once returned after a wait that failed with errno " << error;
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), error) << e.what();
    }
  }
}

TEST(EventLoop, InterruptedWaitIsAnEmptyTurn) {
  EventLoop loop(EventLoop::RefusePwait2ForTests{EINTR});
  EXPECT_EQ(loop.run_once(kNoWait), 0);
  EXPECT_EQ(loop.run_once(kNoWait), 0);
}

}  // namespace
}  // namespace ringside::core
