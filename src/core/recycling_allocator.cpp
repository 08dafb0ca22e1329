#include "core/recycling_allocator.hpp"

#include <bit>
#include <cstdlib>
#include <cstring>

namespace ringside::core {
namespace {

// Each block starts with a header saying its class, so free() needs no size; the header is as
// large as malloc's alignment, so what follows it is aligned as malloc's memory is.
constexpr std::size_t kHeader = alignof(std::max_align_t);
constexpr std::uint32_t kHeapClass = 0xffffffffu;  // larger than every class: from the heap

struct Header {
  std::uint32_t size_class;
  std::size_t bytes;  // what the block holds
};
static_assert(sizeof(Header) <= kHeader);

std::size_t class_bytes(std::uint32_t size_class) {
  return RecyclingAllocator::kSmallestClass << size_class;
}

// The smallest class holding `size` bytes, or kHeapClass.
std::uint32_t class_of(std::size_t size) {
  if (size <= RecyclingAllocator::kSmallestClass) return 0;
  const auto shift = static_cast<std::uint32_t>(std::bit_width(size - 1) - 4);
  return shift < RecyclingAllocator::kClasses ? shift : kHeapClass;
}

Header* header_of(void* block) {
  return reinterpret_cast<Header*>(static_cast<char*>(block) - kHeader);
}

}  // namespace

RecyclingAllocator::~RecyclingAllocator() {
  for (FreeBlock*& list : free_) {
    while (list != nullptr) {
      FreeBlock* next = list->next;
      std::free(reinterpret_cast<char*>(list) - kHeader);
      list = next;
    }
  }
}

void* RecyclingAllocator::allocate(std::size_t size) {
  const std::uint32_t size_class = class_of(size);
  if (size_class != kHeapClass && free_[size_class] != nullptr) {
    FreeBlock* block = free_[size_class];
    free_[size_class] = block->next;
    cached_bytes_ -= class_bytes(size_class);
    return block;
  }
  const std::size_t bytes = size_class == kHeapClass ? size : class_bytes(size_class);
  auto* raw = static_cast<char*>(std::malloc(kHeader + bytes));
  if (raw == nullptr) return nullptr;
  heap_allocations_.store(heap_allocations_.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
  *reinterpret_cast<Header*>(raw) = Header{size_class, bytes};
  return raw + kHeader;
}

void RecyclingAllocator::free(void* block) {
  if (block == nullptr) return;
  const std::uint32_t size_class = header_of(block)->size_class;
  if (size_class == kHeapClass || cached_bytes_ + class_bytes(size_class) > max_cached_bytes_) {
    std::free(header_of(block));
    return;
  }
  auto* node = static_cast<FreeBlock*>(block);
  node->next = free_[size_class];
  free_[size_class] = node;
  cached_bytes_ += class_bytes(size_class);
}

void* RecyclingAllocator::reallocate(void* block, std::size_t size) {
  if (block == nullptr) return allocate(size);
  if (size == 0) {
    free(block);
    return nullptr;
  }
  const std::size_t old_bytes = header_of(block)->bytes;
  if (size <= old_bytes) return block;
  void* bigger = allocate(size);
  if (bigger == nullptr) return nullptr;
  std::memcpy(bigger, block, old_bytes);
  free(block);
  return bigger;
}

}  // namespace ringside::core
