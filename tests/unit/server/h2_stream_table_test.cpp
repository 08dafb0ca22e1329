// H2StreamTable against std::map as the reference: streams opened in a client's rising ids,
// closed in any order, many at once (the table grows, chains form) and few; and its array from
// the allocator, given back on clear and when the last stream leaves.
#include "server/h2_stream_table.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>

namespace ringside::server {
namespace {

TEST(H2StreamTable, FindsWhatIsInAndNothingElse) {
  core::RecyclingAllocator memory;
  H2StreamTable table;
  table.attach(memory);
  EXPECT_EQ(table.find(1), nullptr);
  H2Stream a, b;
  a.id = 1;
  b.id = 33;  // the same home slot as 1 in a 16-slot array
  ASSERT_TRUE(table.insert(a));
  ASSERT_TRUE(table.insert(b));
  EXPECT_EQ(table.find(1), &a);
  EXPECT_EQ(table.find(33), &b);
  EXPECT_EQ(table.find(3), nullptr);
  table.erase(1);
  EXPECT_EQ(table.find(1), nullptr);
  EXPECT_EQ(table.find(33), &b);  // its slot's chain, still found
  EXPECT_EQ(table.size(), 1u);
  table.erase(7);  // not in: nothing changes
  EXPECT_EQ(table.size(), 1u);
  table.clear();
  EXPECT_EQ(table.find(33), nullptr);
  EXPECT_EQ(memory.cached_bytes() > 0, true);  // the array went back to the allocator
}

TEST(H2StreamTable, AgreesWithAMapOverRandomOpensAndCloses) {
  core::RecyclingAllocator memory;
  H2StreamTable table;
  table.attach(memory);
  std::deque<H2Stream> streams;  // stable addresses
  std::map<std::int32_t, H2Stream*> reference;
  std::mt19937 random(23);
  std::int32_t next_id = 1;
  for (int step = 0; step < 200000; ++step) {
    const std::size_t target = step < 100000 ? 300 : 5;  // many at once, then few
    const bool open = reference.size() < target && (reference.empty() || random() % 3 != 0);
    if (open) {
      streams.emplace_back();
      streams.back().id = next_id;
      next_id += 2 * static_cast<std::int32_t>(1 + random() % 3);  // ids skipped too
      ASSERT_TRUE(table.insert(streams.back()));
      reference[streams.back().id] = &streams.back();
    } else {
      auto it = reference.begin();
      std::advance(it, static_cast<long>(random() % reference.size()));
      table.erase(it->first);
      reference.erase(it);
    }
    ASSERT_EQ(table.size(), reference.size());
    if (step % 97 == 0) {
      for (const auto& [id, stream] : reference) ASSERT_EQ(table.find(id), stream) << id;
      std::size_t visited = 0;
      table.for_each([&](H2Stream& stream) {
        ++visited;
        EXPECT_EQ(reference.at(stream.id), &stream);
      });
      ASSERT_EQ(visited, reference.size());
      ASSERT_EQ(table.find(next_id), nullptr);
    }
    if (streams.size() > 4096 && reference.empty()) streams.clear();
  }
}

}  // namespace
}  // namespace ringside::server
