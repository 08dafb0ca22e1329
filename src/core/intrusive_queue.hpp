// A first-in, first-out queue of objects linked through their own `Next` member: pushing and
// popping touch two pointers and never allocate, and an object can sit in one such queue at a time
// per link member (a pooled object may share its link with the pool's free list, since it is in
// one or the other). The queue does not own what it holds.
//
//   struct Job { Job* next = nullptr; ... };
//   core::IntrusiveQueue<Job, &Job::next> jobs;
//   jobs.push(job);                       // at the back; its link is cleared first
//   while (Job* job = jobs.pop()) run(*job);   // oldest first; nullptr once empty
//   done.append(jobs);                    // every job of `jobs` after done's, `jobs` emptied
//
// Moving a queue takes its objects and leaves the source empty; copying would leave two queues
// sharing links, and is not allowed.
#pragma once

#include <cstddef>
#include <iterator>

namespace ringside::core {

template <typename T, T* T::*Next>
class IntrusiveQueue {
 public:
  IntrusiveQueue() = default;
  IntrusiveQueue(const IntrusiveQueue&) = delete;
  IntrusiveQueue& operator=(const IntrusiveQueue&) = delete;
  IntrusiveQueue(IntrusiveQueue&& other) noexcept { take(other); }
  IntrusiveQueue& operator=(IntrusiveQueue&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }

  [[nodiscard]] bool empty() const { return first_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return size_; }
  // The oldest object, still queued; nullptr when empty.
  [[nodiscard]] T* front() const { return first_; }

  void push(T& item) {
    item.*Next = nullptr;
    if (last_ != nullptr) {
      last_->*Next = &item;
    } else {
      first_ = &item;
    }
    last_ = &item;
    ++size_;
  }

  // Takes the oldest object off, its link cleared; nullptr when empty.
  T* pop() {
    T* item = first_;
    if (item == nullptr) return nullptr;
    first_ = item->*Next;
    if (first_ == nullptr) last_ = nullptr;
    item->*Next = nullptr;
    --size_;
    return item;
  }

  // Moves every object of `other` to the back of this queue, in order; `other` is left empty.
  void append(IntrusiveQueue& other) {
    if (other.first_ == nullptr || &other == this) return;
    if (last_ != nullptr) {
      last_->*Next = other.first_;
    } else {
      first_ = other.first_;
    }
    last_ = other.last_;
    size_ += other.size_;
    other.forget();
  }

  // Oldest first. The queue must not change while this walks it.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = T*;
    using reference = T&;

    Iterator() = default;
    explicit Iterator(T* item) : item_(item) {}
    T& operator*() const { return *item_; }
    T* operator->() const { return item_; }
    Iterator& operator++() {
      item_ = item_->*Next;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const { return item_ == other.item_; }

   private:
    T* item_ = nullptr;
  };
  [[nodiscard]] Iterator begin() const { return Iterator(first_); }
  [[nodiscard]] Iterator end() const { return Iterator(); }

 private:
  void take(IntrusiveQueue& other) {
    first_ = other.first_;
    last_ = other.last_;
    size_ = other.size_;
    other.forget();
  }
  void forget() {
    first_ = last_ = nullptr;
    size_ = 0;
  }

  T* first_ = nullptr;
  T* last_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ringside::core
