// Replaces the global operator new/delete with versions that count allocations, for tests that
// assert a steady state allocates nothing. Include it in exactly one file of a test binary.
//
// Every replaceable allocation form is counted: single and array, plain and nothrow, and the
// over-aligned (std::align_val_t) variants of each. Replacing only the plain forms would let an
// allocation through `new (std::nothrow)` or of an alignas(64) type slip past the count.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace ringside::alloc_count {
inline std::atomic<std::size_t> g_allocations{0};
inline std::size_t allocations() { return g_allocations.load(); }

// Counts, then takes the memory from malloc (or aligned_alloc); nullptr when there is none.
inline void* counted_allocate(std::size_t size, std::size_t alignment) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  // aligned_alloc wants a size that is a multiple of the alignment.
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
inline void* counted_allocate_or_throw(std::size_t size, std::size_t alignment) {
  if (void* p = counted_allocate(size, alignment)) return p;
  throw std::bad_alloc();
}
}  // namespace ringside::alloc_count

void* operator new(std::size_t size) {
  return ringside::alloc_count::counted_allocate_or_throw(size, 0);
}
void* operator new[](std::size_t size) {
  return ringside::alloc_count::counted_allocate_or_throw(size, 0);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return ringside::alloc_count::counted_allocate(size, 0);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return ringside::alloc_count::counted_allocate(size, 0);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return ringside::alloc_count::counted_allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return ringside::alloc_count::counted_allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return ringside::alloc_count::counted_allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return ringside::alloc_count::counted_allocate(size, static_cast<std::size_t>(alignment));
}

// Every form above takes its memory from malloc or aligned_alloc, so every delete hands it back to
// free: the pairing is right, but GCC sees "new" and "free" meet and warns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop
