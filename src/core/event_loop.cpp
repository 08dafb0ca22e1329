#include "core/event_loop.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
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
  // epoll_pwait2 takes a timespec: a deadline 300 us away is waited for 300 us, not rounded to a
  // whole millisecond (which would delay every scheduled send of a constant-rate load by up to 1 ms).
  if (max_wait < Duration::zero()) max_wait = Duration::zero();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(max_wait).count();
  timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  int n = -1;
  if (has_pwait2_) {
    n = epoll_pwait2(epoll_fd_, events_->data(), kMaxEventsPerTurn, &timeout, nullptr);
    if (n < 0 && errno == ENOSYS) has_pwait2_ = false;  // kernels before 5.11, valgrind
  }
  if (!has_pwait2_) {
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(max_wait).count();
    n = epoll_wait(epoll_fd_, events_->data(), kMaxEventsPerTurn, static_cast<int>(ms));
  }
  now_ = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto& ev = (*events_)[i];
    static_cast<IoHandler*>(ev.data.ptr)->on_io(from_epoll(ev.events));
  }
  return n < 0 ? 0 : n;
}

}  // namespace ringside::core
