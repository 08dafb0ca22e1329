// Replaces the global operator new/delete with versions that count allocations, for tests that
// assert a steady state allocates nothing. Include it in exactly one file of a test binary.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace ringside::alloc_count {
inline std::atomic<std::size_t> g_allocations{0};
inline std::size_t allocations() { return g_allocations.load(); }
}  // namespace ringside::alloc_count

void* operator new(std::size_t size) {
  ringside::alloc_count::g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }

// The replaced operator new takes its memory from malloc, so operator delete hands it back to free:
// the pairing is right, but GCC sees "new" and "free" meet and warns.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
