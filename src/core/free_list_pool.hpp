// Objects recycled through an intrusive free list: a released object goes on a singly linked list
// threaded through its own `Next` member, and the next acquire takes it back. Storage is a deque,
// which never moves what it holds, so references stay valid and, once the pool has grown to the
// steady state's high-water mark, acquiring and releasing allocate nothing.
//
//   struct Call { Call* next_free = nullptr; ... };
//   core::FreeListPool<Call, &Call::next_free> calls;
//   Call& call = calls.acquire();   // a recycled one (as it was left) or a new one
//   calls.release(call);
//
// acquire() hands back a recycled object as it was released: resetting it is the caller's job.
// Iteration visits every object ever made, in use or not (a worker closing all its connections).
#pragma once

#include <cstddef>
#include <deque>

namespace ringside::core {

template <typename T, T* T::*Next>
class FreeListPool {
 public:
  T& acquire() {
    ++in_use_;
    if (free_ == nullptr) return storage_.emplace_back();
    T& item = *free_;
    free_ = item.*Next;
    item.*Next = nullptr;
    return item;
  }

  void release(T& item) {
    --in_use_;
    item.*Next = free_;
    free_ = &item;
  }

  [[nodiscard]] std::size_t in_use() const { return in_use_; }
  [[nodiscard]] std::size_t size() const { return storage_.size(); }
  auto begin() { return storage_.begin(); }
  auto end() { return storage_.end(); }

 private:
  std::deque<T> storage_;
  T* free_ = nullptr;
  std::size_t in_use_ = 0;
};

}  // namespace ringside::core
