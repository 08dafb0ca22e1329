#include "core/waker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace ringside::core {

Waker::Waker(EventLoop& loop, std::function<void()> on_wake)
    : loop_(loop), fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)), on_wake_(std::move(on_wake)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  if (!loop_.watch(fd_, kReadable, this)) {
    int error = errno;
    close(fd_);
    throw std::system_error(error, std::generic_category(), "epoll_ctl(eventfd)");
  }
}

Waker::~Waker() {
  loop_.unwatch(fd_);
  close(fd_);
}

void Waker::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = write(fd_, &one, sizeof one);
}

void Waker::on_io(IoEvents) {
  std::uint64_t count = 0;
  [[maybe_unused]] auto n = read(fd_, &count, sizeof count);
  on_wake_();
}

}  // namespace ringside::core
