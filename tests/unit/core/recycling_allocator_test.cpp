#include "core/recycling_allocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace ringside::core {
namespace {

TEST(RecyclingAllocator, AFreedBlockIsHandedOutAgainForItsClass) {
  RecyclingAllocator memory;
  void* first = memory.allocate(100);  // the 128-byte class
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(memory.heap_allocations(), 1U);
  memory.free(first);
  EXPECT_EQ(memory.cached_bytes(), 128U);
  EXPECT_EQ(memory.allocate(120), first);  // same class: the same block, no heap
  EXPECT_EQ(memory.heap_allocations(), 1U);
  void* other = memory.allocate(200);  // another class: from the heap
  EXPECT_NE(other, first);
  EXPECT_EQ(memory.heap_allocations(), 2U);
  memory.free(first);
  memory.free(other);
}

TEST(RecyclingAllocator, BlocksAreAlignedAsMallocsAndHoldTheirSize) {
  RecyclingAllocator memory;
  std::vector<void*> blocks;
  for (std::size_t size : {1U, 15U, 16U, 17U, 1000U, 4096U, 65536U, 65537U, 300000U}) {
    void* block = memory.allocate(size);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % alignof(std::max_align_t), 0U) << size;
    std::memset(block, 0xab, size);  // ASan would catch a block shorter than asked
    blocks.push_back(block);
  }
  for (void* block : blocks) memory.free(block);
}

TEST(RecyclingAllocator, ReallocateKeepsTheBytes) {
  RecyclingAllocator memory;
  auto* block = static_cast<char*>(memory.allocate(20));  // 32-byte class
  std::memcpy(block, "0123456789abcdefghij", 20);
  EXPECT_EQ(memory.reallocate(block, 32), block);  // still fits its class
  auto* bigger = static_cast<char*>(memory.reallocate(block, 5000));
  ASSERT_NE(bigger, nullptr);
  EXPECT_EQ(std::memcmp(bigger, "0123456789abcdefghij", 20), 0);
  auto* huge = static_cast<char*>(memory.reallocate(bigger, 100000));  // beyond the classes
  EXPECT_EQ(std::memcmp(huge, "0123456789abcdefghij", 20), 0);
  auto* huger = static_cast<char*>(memory.reallocate(huge, 200000));
  EXPECT_EQ(std::memcmp(huger, "0123456789abcdefghij", 20), 0);
  EXPECT_EQ(memory.reallocate(huger, 0), nullptr);  // frees
  void* fresh = memory.reallocate(nullptr, 10);     // allocates
  EXPECT_NE(fresh, nullptr);
  memory.free(fresh);
}

TEST(RecyclingAllocator, KeepsNoMoreThanItsCap) {
  RecyclingAllocator memory(1024);
  std::vector<void*> blocks;
  for (int i = 0; i < 20; ++i) blocks.push_back(memory.allocate(256));
  for (void* block : blocks) memory.free(block);
  EXPECT_EQ(memory.cached_bytes(), 1024U);  // four 256-byte blocks kept, the rest given back
  // A steady state within the cap reaches the heap no more.
  const std::uint64_t before = memory.heap_allocations();
  for (int round = 0; round < 100; ++round) {
    void* a = memory.allocate(256);
    void* b = memory.allocate(200);
    memory.free(a);
    memory.free(b);
  }
  EXPECT_EQ(memory.heap_allocations(), before);
}

}  // namespace
}  // namespace ringside::core
