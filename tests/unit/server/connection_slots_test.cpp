#include "server/connection_slots.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ringside::server {
namespace {

TEST(ConnectionSlots, ReservesUpToTheCapacityThenRefuses) {
  ConnectionSlots slots(3);
  EXPECT_TRUE(slots.try_reserve());
  EXPECT_TRUE(slots.try_reserve());
  EXPECT_TRUE(slots.try_reserve());
  EXPECT_FALSE(slots.try_reserve());
  EXPECT_EQ(slots.used(), 3u);
  slots.release();
  EXPECT_EQ(slots.used(), 2u);
  EXPECT_TRUE(slots.try_reserve());
  EXPECT_FALSE(slots.try_reserve());
}

TEST(ConnectionSlots, ARefusalTakesNothing) {
  ConnectionSlots slots(1);
  ASSERT_TRUE(slots.try_reserve());
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(slots.try_reserve());
  EXPECT_EQ(slots.used(), 1u);
  slots.release();
  EXPECT_EQ(slots.used(), 0u);
}

// Workers race for the last slot: however the threads interleave, no more than the capacity is
// ever held at once. A check followed by a separate increment fails this within a few thousand
// rounds (two threads both see capacity - 1 free and both take it). Counted in rounds, not time.
TEST(ConnectionSlots, ThreadsRacingNeverHoldMoreThanTheCapacity) {
  constexpr std::size_t kCapacity = 1;
  constexpr int kThreads = 4;
  constexpr int kRounds = 1'000'000;
  ConnectionSlots slots(kCapacity);
  std::atomic<std::size_t> held{0};
  std::atomic<std::size_t> most_held{0};
  std::atomic<std::size_t> reservations{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round) {
        if (!slots.try_reserve()) continue;
        reservations.fetch_add(1, std::memory_order_relaxed);
        const std::size_t now_held = held.fetch_add(1) + 1;
        std::size_t most = most_held.load();
        while (now_held > most && !most_held.compare_exchange_weak(most, now_held)) {
        }
        held.fetch_sub(1);
        slots.release();
      }
    });
  }
  go.store(true);
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(most_held.load(), kCapacity);
  EXPECT_EQ(slots.used(), 0u);
  EXPECT_GT(reservations.load(), 0u);
}

}  // namespace
}  // namespace ringside::server
