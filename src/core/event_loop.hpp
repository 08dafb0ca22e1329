// The event loop: readiness notification for file descriptors and the loop's notion of "now".
// It knows nothing of HTTP. Handlers are registered per fd and receive IoEvents flags. This is the
// epoll implementation; an io_uring twin can sit beside it with the same interface.
//
//   EventLoop loop;
//   loop.watch(fd, kReadable | kEdgeTriggered, &handler);
//   while (running) loop.run_once(max_wait);   // dispatches handler.on_io(events)
//
// Waits use epoll_pwait2 (nanosecond timeouts). Where the kernel lacks it (ENOSYS) or a sandbox
// refuses it (seccomp answers EPERM, some EINVAL), the loop falls back to epoll_wait for good on
// the first refusal. A wait interrupted by a signal is an empty turn. Any other failure means the
// loop itself is broken (EBADF, EFAULT): run_once throws std::system_error rather than returning
// at once turn after turn, which would spin a core and hide the cause.
#pragma once

#include <array>
#include <cstdint>

#include "core/clock.hpp"

struct epoll_event;

namespace ringside::core {

using IoEvents = std::uint32_t;
inline constexpr IoEvents kReadable = 1u << 0;
inline constexpr IoEvents kWritable = 1u << 1;
inline constexpr IoEvents kPeerClosed = 1u << 2;  // peer shut down its side, or hung up
inline constexpr IoEvents kError = 1u << 3;
inline constexpr IoEvents kEdgeTriggered = 1u << 4;  // registration flag only

class IoHandler {
 public:
  virtual void on_io(IoEvents events) = 0;

 protected:
  ~IoHandler() = default;
};

class EventLoop {
 public:
  // Tests only: every epoll_pwait2 call fails with `error` instead of reaching the kernel, as under
  // a sandbox that refuses the call.
  struct RefusePwait2ForTests {
    int error;
  };

  EventLoop();
  explicit EventLoop(RefusePwait2ForTests refusal);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Each returns false and leaves errno set when the kernel refuses.
  [[nodiscard]] bool watch(int fd, IoEvents events, IoHandler* handler);
  [[nodiscard]] bool modify(int fd, IoEvents events, IoHandler* handler);
  void unwatch(int fd);

  // Waits up to `max_wait` for events, refreshes now(), dispatches them; returns how many (0 on
  // a timeout or a signal). Throws std::system_error when the kernel refuses the wait for any
  // other reason (see above): the loop cannot go on.
  int run_once(Duration max_wait);

  // The time read at the start of the current turn.
  [[nodiscard]] TimePoint now() const { return now_; }
  void refresh_now() { now_ = Clock::now(); }

 private:
  // Which call waits: nanosecond epoll_pwait2, else epoll_wait with whole milliseconds.
  enum class WaitCall : std::uint8_t { kPwait2, kEpollWait, kRefusedPwait2ForTests };

  [[nodiscard]] int wait(Duration max_wait);
  [[nodiscard]] int wait_milliseconds(Duration max_wait);

  static constexpr int kMaxEventsPerTurn = 512;
  int epoll_fd_ = -1;
  WaitCall wait_call_ = WaitCall::kPwait2;
  int refusal_for_tests_ = 0;
  TimePoint now_;
  std::array<epoll_event, kMaxEventsPerTurn>* events_;
};

}  // namespace ringside::core
