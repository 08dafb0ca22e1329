#include "core/intrusive_queue.hpp"

#include <gtest/gtest.h>

#include <array>
#include <utility>
#include <vector>

#include "core/free_list_pool.hpp"

namespace ringside::core {
namespace {

struct Item {
  int value = 0;
  Item* next = nullptr;
};
using Queue = IntrusiveQueue<Item, &Item::next>;

std::vector<int> values(const Queue& queue) {
  std::vector<int> out;
  for (const Item& item : queue) out.push_back(item.value);
  return out;
}

TEST(IntrusiveQueue, StartsEmpty) {
  Queue queue;
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.size(), 0u);
  EXPECT_EQ(queue.front(), nullptr);
  EXPECT_EQ(queue.pop(), nullptr);
  EXPECT_TRUE(queue.begin() == queue.end());
}

TEST(IntrusiveQueue, PopsInTheOrderPushedAndClearsEachLink) {
  std::array<Item, 3> items{{{1}, {2}, {3}}};
  Queue queue;
  for (Item& item : items) queue.push(item);
  EXPECT_FALSE(queue.empty());
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue.front(), &items[0]);
  EXPECT_EQ(values(queue), (std::vector<int>{1, 2, 3}));
  for (Item& item : items) {
    Item* popped = queue.pop();
    ASSERT_EQ(popped, &item);
    EXPECT_EQ(popped->next, nullptr);
  }
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.size(), 0u);
  EXPECT_EQ(queue.pop(), nullptr);
}

TEST(IntrusiveQueue, PushClearsAStaleLinkAndTheQueueIsReusableOnceEmptied) {
  Item stale{9};
  Item a{1};
  Item b{2};
  a.next = &stale;  // left over from a free list
  Queue queue;
  queue.push(a);
  EXPECT_EQ(a.next, nullptr);
  EXPECT_EQ(queue.pop(), &a);
  queue.push(b);
  queue.push(a);
  EXPECT_EQ(values(queue), (std::vector<int>{2, 1}));
  EXPECT_EQ(a.next, nullptr) << "the last one links nowhere";
}

TEST(IntrusiveQueue, PushAndPopInterleaved) {
  std::array<Item, 4> items{{{1}, {2}, {3}, {4}}};
  Queue queue;
  queue.push(items[0]);
  queue.push(items[1]);
  EXPECT_EQ(queue.pop(), &items[0]);
  queue.push(items[2]);
  EXPECT_EQ(queue.pop(), &items[1]);
  EXPECT_EQ(queue.pop(), &items[2]);
  EXPECT_TRUE(queue.empty());
  queue.push(items[3]);
  EXPECT_EQ(queue.front(), &items[3]);
  EXPECT_EQ(queue.size(), 1u);
}

TEST(IntrusiveQueue, AppendMovesEverythingToTheBackInOrder) {
  std::array<Item, 5> items{{{1}, {2}, {3}, {4}, {5}}};
  Queue first;
  Queue second;
  first.push(items[0]);
  first.push(items[1]);
  for (int i = 2; i < 5; ++i) second.push(items[i]);
  first.append(second);
  EXPECT_TRUE(second.empty());
  EXPECT_EQ(second.size(), 0u);
  EXPECT_EQ(second.front(), nullptr);
  EXPECT_EQ(first.size(), 5u);
  EXPECT_EQ(values(first), (std::vector<int>{1, 2, 3, 4, 5}));
  // The back is the appended queue's back: a push goes after it.
  Item six{6};
  first.push(six);
  EXPECT_EQ(items[4].next, &six);
}

TEST(IntrusiveQueue, AppendToAndFromAnEmptyQueue) {
  std::array<Item, 2> items{{{1}, {2}}};
  Queue empty;
  Queue full;
  full.push(items[0]);
  full.push(items[1]);
  full.append(empty);
  EXPECT_EQ(values(full), (std::vector<int>{1, 2}));
  empty.append(full);
  EXPECT_TRUE(full.empty());
  EXPECT_EQ(values(empty), (std::vector<int>{1, 2}));
  EXPECT_EQ(empty.size(), 2u);
  Item three{3};
  empty.push(three);
  EXPECT_EQ(values(empty), (std::vector<int>{1, 2, 3}));
}

TEST(IntrusiveQueue, MovingTakesTheObjectsAndEmptiesTheSource) {
  std::array<Item, 2> items{{{1}, {2}}};
  Queue queue;
  queue.push(items[0]);
  queue.push(items[1]);
  Queue moved(std::move(queue));
  EXPECT_TRUE(queue.empty());  // NOLINT(bugprone-use-after-move): emptied on purpose
  EXPECT_EQ(values(moved), (std::vector<int>{1, 2}));
  Queue assigned;
  assigned = std::move(moved);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(assigned.size(), 2u);
  EXPECT_EQ(assigned.pop(), &items[0]);
  EXPECT_EQ(assigned.pop(), &items[1]);
}

TEST(IntrusiveQueue, SharesItsLinkWithAFreeListPool) {
  // A pooled object is either queued or free, so one link serves both (server/connection.cpp's
  // PendingReplies, db/sqlite_database.cpp's jobs).
  FreeListPool<Item, &Item::next> pool;
  Queue queue;
  for (int i = 1; i <= 3; ++i) {
    Item& item = pool.acquire();
    item.value = i;
    queue.push(item);
  }
  while (Item* item = queue.pop()) pool.release(*item);
  EXPECT_EQ(pool.in_use(), 0u);
  Item& again = pool.acquire();
  EXPECT_EQ(again.value, 3) << "last released, first acquired";
  queue.push(again);
  EXPECT_EQ(values(queue), (std::vector<int>{3}));
  EXPECT_EQ(pool.size(), 3u);
}

}  // namespace
}  // namespace ringside::core
