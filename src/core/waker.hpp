// Wakes an event loop from another thread (an eventfd). The only cross-thread touch point of a
// worker: used for shutdown, never on the data path.
#pragma once

#include <functional>

#include "core/event_loop.hpp"

namespace ringside::core {

class Waker final : public IoHandler {
 public:
  // `on_wake` runs on the loop's thread after one or more wake() calls.
  Waker(EventLoop& loop, std::function<void()> on_wake);
  ~Waker();
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;

  void wake();  // thread-safe
  void on_io(IoEvents events) override;

 private:
  EventLoop& loop_;
  int fd_;
  std::function<void()> on_wake_;
};

}  // namespace ringside::core
