// Fixed-size memory blocks for per-connection buffers that are needed only sometimes (a partial
// request, a response the kernel did not take at once). Most connections never hold one, so
// memory follows the number of slow connections, not the number of open ones.
//
// The first `reserved` blocks come from one anonymous mapping made up front: the kernel backs a
// page only when it is first written, so reserving costs address space, not RSS, and the first
// `reserved` blocks in use at once never allocate. Beyond that, blocks come from the heap and
// up to `max_cached` of them are kept for reuse, so a steady state allocates nothing.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <new>
#include <vector>

namespace ringside::core {

class BlockPool {
 public:
  BlockPool(std::size_t block_size, std::size_t max_cached, std::size_t reserved = 0)
      : block_size_(block_size), max_cached_(max_cached) {
    free_.reserve(max_cached + reserved);
    if (reserved > 0) {
      void* slab = mmap(nullptr, block_size * reserved, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (slab == MAP_FAILED) throw std::bad_alloc();
      slab_ = static_cast<char*>(slab);
      slab_bytes_ = block_size * reserved;
      for (std::size_t i = reserved; i > 0; --i) free_.push_back(slab_ + (i - 1) * block_size);
    }
  }
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (char* block : free_) {
      if (!in_slab(block)) delete[] block;
    }
    if (slab_ != nullptr) munmap(slab_, slab_bytes_);
  }

  [[nodiscard]] std::size_t block_size() const { return block_size_; }
  [[nodiscard]] std::size_t in_use() const { return in_use_; }
  [[nodiscard]] std::size_t cached() const { return free_.size(); }

  [[nodiscard]] char* acquire() {
    ++in_use_;
    if (free_.empty()) return new char[block_size_];
    char* block = free_.back();
    free_.pop_back();
    if (!in_slab(block)) --heap_cached_;
    return block;
  }

  // Keeps `rest` (the unprocessed tail of some input, at most block_size() bytes) in `block`,
  // borrowing a block when it has none; gives the block back when `rest` is empty. `rest` may
  // already lie inside `block`.
  void keep(char*& block, std::uint32_t& length, std::span<const char> rest) {
    if (rest.empty()) {
      release(block);
      block = nullptr;
      length = 0;
      return;
    }
    if (block == nullptr) block = acquire();
    if (rest.data() != block) std::memmove(block, rest.data(), rest.size());
    length = static_cast<std::uint32_t>(rest.size());
  }

  void release(char* block) {
    if (block == nullptr) return;
    --in_use_;
    // free_ never reallocates: its capacity covers every slab block plus max_cached heap ones.
    if (in_slab(block)) {
      free_.push_back(block);
    } else if (heap_cached_ < max_cached_) {
      free_.push_back(block);
      ++heap_cached_;
    } else {
      delete[] block;
    }
  }

 private:
  [[nodiscard]] bool in_slab(const char* block) const {
    return slab_ != nullptr && block >= slab_ && block < slab_ + slab_bytes_;
  }

  std::size_t block_size_;
  std::size_t max_cached_;
  std::size_t in_use_ = 0;
  std::size_t heap_cached_ = 0;
  char* slab_ = nullptr;
  std::size_t slab_bytes_ = 0;
  std::vector<char*> free_;
};

}  // namespace ringside::core
