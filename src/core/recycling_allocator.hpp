// Memory for a library that allocates as it goes (libnghttp2's sessions, streams and frames):
// blocks in power-of-two size classes from 16 bytes to 64 KiB, each freed block kept on its class's
// list and handed out again, so a steady state that frees what it allocates reaches the heap no
// more. One thread uses one allocator (a worker's); nothing is locked.
//
//   core::RecyclingAllocator memory;
//   void* p = memory.allocate(100);   // a 128-byte block (its class), from the list or the heap
//   p = memory.reallocate(p, 300);    // a 512-byte block holding the first 100... bytes
//   memory.free(p);                   // back on the 512-byte list
//
// Lists keep at most `max_cached_bytes` in all; beyond that freed blocks go back to the heap, so an
// attack that opened many streams once does not pin its peak for ever. Larger requests than the
// largest class go to the heap each time. heap_allocations() counts every block taken from the
// heap, which is what a no-allocation test watches.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ringside::core {

class RecyclingAllocator {
 public:
  static constexpr std::size_t kSmallestClass = 16;
  static constexpr std::size_t kClasses = 13;  // 16 B .. 64 KiB

  explicit RecyclingAllocator(std::size_t max_cached_bytes = 8 * 1024 * 1024)
      : max_cached_bytes_(max_cached_bytes) {}
  RecyclingAllocator(const RecyclingAllocator&) = delete;
  RecyclingAllocator& operator=(const RecyclingAllocator&) = delete;
  ~RecyclingAllocator();

  // nullptr when the heap has nothing left. Aligned as malloc's memory is.
  [[nodiscard]] void* allocate(std::size_t size);
  // realloc's contract: nullptr `block` allocates, size 0 frees (and answers nullptr).
  [[nodiscard]] void* reallocate(void* block, std::size_t size);
  void free(void* block);

  // Safe to read from another thread (a test's), as a count that may be a moment old.
  [[nodiscard]] std::uint64_t heap_allocations() const {
    return heap_allocations_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::size_t cached_bytes() const { return cached_bytes_; }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };

  std::array<FreeBlock*, kClasses> free_{};
  std::size_t cached_bytes_ = 0;
  std::size_t max_cached_bytes_;
  std::atomic<std::uint64_t> heap_allocations_{0};  // written by the owning thread alone
};

}  // namespace ringside::core
