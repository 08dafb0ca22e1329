// The --max-connections cap, shared by every worker of a server: a worker reserves a slot before
// it accepts and gives it back when the connection closes. Reserving is one compare-and-swap, so
// any number of threads together never hold more slots than the cap; a load followed by a separate
// increment would let each of N workers pass the check at cap - 1 and open cap + N - 1.
// Touched once per accept and per close, never per request.
#pragma once

#include <atomic>
#include <cstddef>

namespace ringside::server {

class ConnectionSlots {
 public:
  explicit ConnectionSlots(std::size_t capacity) : capacity_(capacity) {}
  ConnectionSlots(const ConnectionSlots&) = delete;
  ConnectionSlots& operator=(const ConnectionSlots&) = delete;

  // Takes a slot; false when all are taken. Thread-safe.
  [[nodiscard]] bool try_reserve() {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (used >= capacity_) return false;
    } while (!used_.compare_exchange_weak(used, used + 1, std::memory_order_relaxed));
    return true;
  }
  // Gives back a slot taken by try_reserve(). Thread-safe.
  void release() { used_.fetch_sub(1, std::memory_order_relaxed); }

  [[nodiscard]] std::size_t used() const { return used_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

 private:
  const std::size_t capacity_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace ringside::server
