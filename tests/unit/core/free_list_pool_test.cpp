#include "core/free_list_pool.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace ringside::core {
namespace {

struct Item {
  int value = 0;
  Item* next = nullptr;
};
using Pool = FreeListPool<Item, &Item::next>;

TEST(FreeListPool, ReleasedObjectsComeBackBeforeNewOnesAreMade) {
  Pool pool;
  Item& a = pool.acquire();
  Item& b = pool.acquire();
  a.value = 1;
  b.value = 2;
  EXPECT_EQ(pool.in_use(), 2u);
  EXPECT_EQ(pool.size(), 2u);
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.in_use(), 0u);
  // Last released, first acquired; as it was left, its link cleared.
  Item& again = pool.acquire();
  EXPECT_EQ(&again, &b);
  EXPECT_EQ(again.value, 2);
  EXPECT_EQ(again.next, nullptr);
  EXPECT_EQ(&pool.acquire(), &a);
  EXPECT_EQ(pool.size(), 2u) << "nothing new was made";
}

TEST(FreeListPool, ReferencesStayValidAsItGrowsAndIterationSeesEveryObject) {
  Pool pool;
  std::vector<Item*> held;
  for (int i = 0; i < 1000; ++i) {
    Item& item = pool.acquire();
    item.value = i;
    held.push_back(&item);
  }
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(held[static_cast<std::size_t>(i)]->value, i);
  for (int i = 0; i < 1000; i += 2) pool.release(*held[static_cast<std::size_t>(i)]);
  EXPECT_EQ(pool.in_use(), 500u);
  std::set<const Item*> seen;
  for (Item& item : pool) seen.insert(&item);
  EXPECT_EQ(seen.size(), 1000u) << "free ones included";
  std::set<Item*> reacquired;
  for (int i = 0; i < 500; ++i) reacquired.insert(&pool.acquire());
  EXPECT_EQ(reacquired.size(), 500u);
  EXPECT_EQ(pool.size(), 1000u);
}

}  // namespace
}  // namespace ringside::core
