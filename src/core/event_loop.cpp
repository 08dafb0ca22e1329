#include "core/event_loop.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <limits>
#include <system_error>

namespace ringside::core {
namespace {

std::uint32_t to_epoll(IoEvents events) {
  std::uint32_t out = EPOLLRDHUP;
  if (events & kReadable) out |= EPOLLIN;
  if (events & kWritable) out |= EPOLLOUT;
  if (events & kEdgeTriggered) out |= EPOLLET;
  return out;
}

// Refusals that mean "this kernel or sandbox will not run epoll_pwait2": ENOSYS before Linux 5.11
// and under valgrind, EPERM from seccomp profiles that deny unknown calls (older Docker), EINVAL
// from filters that answer so. Our own arguments are always valid (an epoll fd, 512 events, a
// normalised timespec), so a real EINVAL shows up again from epoll_wait and is reported there.
bool pwait2_refused(int error) { return error == ENOSYS || error == EPERM || error == EINVAL; }

IoEvents from_epoll(std::uint32_t events) {
  IoEvents out = 0;
  if (events & EPOLLIN) out |= kReadable;
  if (events & EPOLLOUT) out |= kWritable;
  if (events & (EPOLLRDHUP | EPOLLHUP)) out |= kPeerClosed;
  if (events & EPOLLERR) out |= kError;
  return out;
}

}  // namespace

EventLoop::EventLoop()
    : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      now_(Clock::now()),
      events_(new std::array<epoll_event, kMaxEventsPerTurn>) {
  if (epoll_fd_ < 0) {
    delete events_;
    throw std::system_error(errno, std::generic_category(), "epoll_create1");
  }
}

EventLoop::EventLoop(RefusePwait2ForTests refusal) : EventLoop() {
  wait_call_ = WaitCall::kRefusedPwait2ForTests;
  refusal_for_tests_ = refusal.error;
}

EventLoop::~EventLoop() {
  close(epoll_fd_);
  delete events_;
}

bool EventLoop::watch(int fd, IoEvents events, IoHandler* handler) {
  epoll_event ev{};
  ev.events = to_epoll(events);
  ev.data.ptr = handler;
  return epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool EventLoop::modify(int fd, IoEvents events, IoHandler* handler) {
  epoll_event ev{};
  ev.events = to_epoll(events);
  ev.data.ptr = handler;
  return epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void EventLoop::unwatch(int fd) { epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

int EventLoop::run_once(Duration max_wait) {
  if (max_wait < Duration::zero()) max_wait = Duration::zero();
  int n = wait(max_wait);
  if (n < 0) {
    if (errno != EINTR) {
      throw std::system_error(errno, std::generic_category(),
                              wait_call_ == WaitCall::kEpollWait ? "epoll_wait" : "epoll_pwait2");
    }
    n = 0;  // a signal: an empty turn
  }
  now_ = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto& ev = (*events_)[i];
    static_cast<IoHandler*>(ev.data.ptr)->on_io(from_epoll(ev.events));
  }
  return n;
}

int EventLoop::wait(Duration max_wait) {
  // epoll_pwait2 takes a timespec: a deadline 300 us away is waited for 300 us, not rounded to a
  // whole millisecond (which would delay every scheduled send of a constant-rate load by up to 1 ms).
  int n = -1;
  switch (wait_call_) {
    case WaitCall::kPwait2: {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(max_wait).count();
      const timespec timeout{static_cast<time_t>(ns / 1'000'000'000),
                             static_cast<long>(ns % 1'000'000'000)};
      n = epoll_pwait2(epoll_fd_, events_->data(), kMaxEventsPerTurn, &timeout, nullptr);
      break;
    }
    case WaitCall::kEpollWait:
      return wait_milliseconds(max_wait);
    case WaitCall::kRefusedPwait2ForTests:
      errno = refusal_for_tests_;
      break;
  }
  if (n >= 0 || !pwait2_refused(errno)) return n;
  // Refused, not failed: wait with epoll_wait from now on. Returning at once instead (as before)
  // would make every turn an immediate empty one: a loop spinning at 100% CPU.
  wait_call_ = WaitCall::kEpollWait;
  return wait_milliseconds(max_wait);
}

int EventLoop::wait_milliseconds(Duration max_wait) {
  // Rounded up: rounding down would wake before a timer is due and spin until it is.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(max_wait).count();
  const int timeout = ms > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                           : static_cast<int>(ms);
  return epoll_wait(epoll_fd_, events_->data(), kMaxEventsPerTurn, timeout);
}

}  // namespace ringside::core
