// Fixed-size memory blocks for per-connection buffers that are needed only sometimes (a partial
// request, a response the kernel did not take at once). Most connections never hold one, so
// memory follows the number of slow connections, not the number of open ones. Released blocks
// are kept for reuse, so steady state allocates nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace ringside::core {

class BlockPool {
 public:
  BlockPool(std::size_t block_size, std::size_t max_cached)
      : block_size_(block_size), max_cached_(max_cached) {
    free_.reserve(max_cached);
  }
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (char* block : free_) delete[] block;
  }

  [[nodiscard]] std::size_t block_size() const { return block_size_; }
  [[nodiscard]] std::size_t in_use() const { return in_use_; }
  [[nodiscard]] std::size_t cached() const { return free_.size(); }

  [[nodiscard]] char* acquire() {
    ++in_use_;
    if (free_.empty()) return new char[block_size_];
    char* block = free_.back();
    free_.pop_back();
    return block;
  }

  void release(char* block) {
    if (block == nullptr) return;
    --in_use_;
    if (free_.size() < max_cached_) {
      free_.push_back(block);
    } else {
      delete[] block;
    }
  }

 private:
  std::size_t block_size_;
  std::size_t max_cached_;
  std::size_t in_use_ = 0;
  std::vector<char*> free_;
};

}  // namespace ringside::core
