#include "core/block_pool.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

namespace ringside::core {
namespace {

TEST(BlockPool, ReportsItsBlockSize) {
  BlockPool pool(4096, 8);
  EXPECT_EQ(pool.block_size(), 4096u);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(pool.cached(), 0u);
}

TEST(BlockPool, BlocksAreWritableAndDistinct) {
  BlockPool pool(256, 4);
  char* a = pool.acquire();
  char* b = pool.acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  std::memset(a, 'a', pool.block_size());  // AddressSanitizer checks the whole block is ours
  std::memset(b, 'b', pool.block_size());
  EXPECT_EQ(a[255], 'a');
  EXPECT_EQ(b[0], 'b');
  pool.release(a);
  pool.release(b);
}

TEST(BlockPool, ReleasedBlockIsReused) {
  BlockPool pool(128, 4);
  char* first = pool.acquire();
  pool.release(first);
  EXPECT_EQ(pool.cached(), 1u);
  char* second = pool.acquire();
  EXPECT_EQ(second, first);
  EXPECT_EQ(pool.cached(), 0u);
  pool.release(second);
}

TEST(BlockPool, ReusesMostRecentlyReleasedFirst) {
  BlockPool pool(64, 4);
  char* a = pool.acquire();
  char* b = pool.acquire();
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.acquire(), b);  // still warm in cache
  EXPECT_EQ(pool.acquire(), a);
  pool.release(a);
  pool.release(b);
}

TEST(BlockPool, CountsBlocksInUse) {
  BlockPool pool(64, 2);
  std::vector<char*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(pool.acquire());
  EXPECT_EQ(pool.in_use(), 5u);
  pool.release(blocks[0]);
  pool.release(blocks[1]);
  EXPECT_EQ(pool.in_use(), 3u);
  blocks.push_back(pool.acquire());
  EXPECT_EQ(pool.in_use(), 4u);
  for (std::size_t i = 2; i < blocks.size(); ++i) pool.release(blocks[i]);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(BlockPool, ReleaseOfNullIsNoOp) {
  BlockPool pool(64, 2);
  char* block = pool.acquire();
  pool.release(nullptr);
  EXPECT_EQ(pool.in_use(), 1u);
  EXPECT_EQ(pool.cached(), 0u);
  pool.release(block);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(BlockPool, CacheIsCappedAndExtraBlocksAreFreed) {
  constexpr std::size_t kMaxCached = 3;
  BlockPool pool(64, kMaxCached);
  std::vector<char*> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(pool.acquire());
  for (char* block : blocks) pool.release(block);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(pool.cached(), kMaxCached);  // the other 7 went back to the heap (LeakSanitizer checks)

  // The cached blocks come back before any new allocation.
  std::set<char*> cached_blocks(blocks.begin() + 0, blocks.begin() + kMaxCached);
  for (std::size_t i = 0; i < kMaxCached; ++i) EXPECT_TRUE(cached_blocks.count(pool.acquire()));
  EXPECT_EQ(pool.cached(), 0u);
  for (char* block : cached_blocks) pool.release(block);
}

TEST(BlockPool, ZeroCacheNeverKeepsBlocks) {
  BlockPool pool(64, 0);
  char* block = pool.acquire();
  pool.release(block);
  EXPECT_EQ(pool.cached(), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
}

}  // namespace
}  // namespace ringside::core

namespace {

TEST(BlockPoolReserved, ReservedBlocksAreAvailableBeforeAnyRelease) {
  ringside::core::BlockPool pool(64, 0, 4);
  EXPECT_EQ(pool.cached(), 4u);
  char* blocks[4];
  for (auto& block : blocks) block = pool.acquire();
  EXPECT_EQ(pool.cached(), 0u);
  EXPECT_EQ(pool.in_use(), 4u);
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      // Distinct blocks that do not overlap.
      EXPECT_GE(std::abs(blocks[i] - blocks[j]), 64);
    }
    std::memset(blocks[i], i, 64);  // writable (ASan checks the bounds)
  }
  for (auto* block : blocks) pool.release(block);
  EXPECT_EQ(pool.cached(), 4u);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(BlockPoolReserved, HeapBlocksBeyondTheReserveAreCappedByMaxCached) {
  ringside::core::BlockPool pool(64, 1, 2);
  char* reserved_a = pool.acquire();
  char* reserved_b = pool.acquire();
  char* heap_a = pool.acquire();  // the reserve is exhausted
  char* heap_b = pool.acquire();
  pool.release(heap_a);  // cached: one heap block allowed
  pool.release(heap_b);  // freed
  pool.release(reserved_a);
  pool.release(reserved_b);
  EXPECT_EQ(pool.cached(), 3u);  // two reserved blocks always return, one heap block is kept
  EXPECT_EQ(pool.in_use(), 0u);
}

}  // namespace
