#include "core/timer_list.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace ringside::core {
namespace {

using std::chrono::seconds;

constexpr Duration kTimeout = seconds(10);
const TimePoint kStart = TimePoint{} + seconds(1000);

// Expires everything due at `now` and returns the nodes in the order they were handed out.
std::vector<TimerNode*> expire_all(TimerList& list, TimePoint now) {
  std::vector<TimerNode*> expired;
  list.expire(now, [&](TimerNode& node) { expired.push_back(&node); });
  return expired;
}

TEST(TimerList, NewListIsEmptyAndExpiresNothing) {
  TimerList list(kTimeout);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.duration(), kTimeout);
  EXPECT_EQ(list.expire(kStart + seconds(3600), [](TimerNode&) { FAIL() << "nothing is armed"; }),
            0u);
}

TEST(TimerList, ArmSetsDeadlineOneDurationAfterNow) {
  TimerList list(kTimeout);
  TimerNode node;
  EXPECT_FALSE(node.armed());
  list.arm(node, kStart);
  EXPECT_TRUE(node.armed());
  EXPECT_FALSE(list.empty());
  EXPECT_EQ(node.deadline, kStart + kTimeout);
  EXPECT_EQ(list.next_deadline(), kStart + kTimeout);
}

TEST(TimerList, ExpiresInArmingOrder) {
  TimerList list(kTimeout);
  TimerNode a, b, c;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(1));
  list.arm(c, kStart + seconds(2));
  auto expired = expire_all(list, kStart + seconds(100));
  EXPECT_EQ(expired, (std::vector<TimerNode*>{&a, &b, &c}));
  EXPECT_TRUE(list.empty());
  EXPECT_FALSE(a.armed());
  EXPECT_FALSE(b.armed());
  EXPECT_FALSE(c.armed());
}

TEST(TimerList, ExpiresOnlyDueTimers) {
  TimerList list(kTimeout);
  TimerNode a, b, c;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(1));
  list.arm(c, kStart + seconds(2));

  EXPECT_TRUE(expire_all(list, kStart + kTimeout - seconds(1)).empty());
  // A deadline equal to now is due.
  EXPECT_EQ(expire_all(list, kStart + kTimeout + seconds(1)), (std::vector<TimerNode*>{&a, &b}));
  EXPECT_FALSE(a.armed());
  EXPECT_FALSE(b.armed());
  EXPECT_TRUE(c.armed());
  EXPECT_EQ(list.next_deadline(), kStart + seconds(2) + kTimeout);
}

TEST(TimerList, DisarmRemovesFromAnyPosition) {
  TimerList list(kTimeout);
  TimerNode a, b, c;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(1));
  list.arm(c, kStart + seconds(2));

  b.disarm();  // middle
  EXPECT_FALSE(b.armed());
  a.disarm();  // head
  EXPECT_EQ(list.next_deadline(), c.deadline);
  c.disarm();  // last one
  EXPECT_TRUE(list.empty());
  EXPECT_TRUE(expire_all(list, kStart + seconds(100)).empty());
}

TEST(TimerList, DisarmOfUnarmedNodeIsNoOp) {
  TimerList list(kTimeout);
  TimerNode armed, idle;
  list.arm(armed, kStart);
  idle.disarm();
  idle.disarm();
  EXPECT_FALSE(idle.armed());
  EXPECT_EQ(expire_all(list, kStart + kTimeout), (std::vector<TimerNode*>{&armed}));
}

TEST(TimerList, RearmMovesNodeToTheTail) {
  TimerList list(kTimeout);
  TimerNode a, b, c;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(1));
  list.arm(c, kStart + seconds(2));
  list.arm(a, kStart + seconds(3));  // activity on a: its timeout starts again

  EXPECT_EQ(a.deadline, kStart + seconds(3) + kTimeout);
  EXPECT_EQ(list.next_deadline(), b.deadline);
  EXPECT_EQ(expire_all(list, kStart + seconds(100)), (std::vector<TimerNode*>{&b, &c, &a}));
}

TEST(TimerList, ArmMovesNodeBetweenLists) {
  TimerList header_timeouts(seconds(5));
  TimerList idle_timeouts(seconds(60));
  TimerNode node;
  header_timeouts.arm(node, kStart);
  idle_timeouts.arm(node, kStart);
  EXPECT_TRUE(header_timeouts.empty());
  EXPECT_EQ(node.deadline, kStart + seconds(60));
  EXPECT_TRUE(expire_all(header_timeouts, kStart + seconds(3600)).empty());
  EXPECT_EQ(expire_all(idle_timeouts, kStart + seconds(60)), (std::vector<TimerNode*>{&node}));
}

TEST(TimerList, CallbackMayRearmWithoutLoopingForever) {
  TimerList list(kTimeout);
  TimerNode a, b;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(1));
  const TimePoint now = kStart + seconds(30);
  int calls = 0;
  std::size_t count = list.expire(now, [&](TimerNode& node) {
    ++calls;
    list.arm(node, now);  // lands at now + duration, after every due timer
  });
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(a.armed());
  EXPECT_TRUE(b.armed());
  EXPECT_EQ(list.next_deadline(), now + kTimeout);
  // Re-armed in expiry order, so the order is kept.
  EXPECT_EQ(expire_all(list, now + kTimeout), (std::vector<TimerNode*>{&a, &b}));
}

TEST(TimerList, CallbackMayDisarmALaterTimer) {
  TimerList list(kTimeout);
  TimerNode a, b, c;
  list.arm(a, kStart);
  list.arm(b, kStart);
  list.arm(c, kStart);
  // Closing the connection of `a` also cancels `b` (say, its peer in a proxy pair).
  auto expired = std::vector<TimerNode*>{};
  list.expire(kStart + kTimeout, [&](TimerNode& node) {
    expired.push_back(&node);
    if (&node == &a) b.disarm();
  });
  EXPECT_EQ(expired, (std::vector<TimerNode*>{&a, &c}));
  EXPECT_TRUE(list.empty());
}

TEST(TimerList, NextDeadlineFollowsTheHead) {
  TimerList list(kTimeout);
  TimerNode a, b;
  list.arm(a, kStart);
  list.arm(b, kStart + seconds(4));
  EXPECT_EQ(list.next_deadline(), kStart + kTimeout);
  expire_all(list, kStart + kTimeout);
  EXPECT_EQ(list.next_deadline(), kStart + seconds(4) + kTimeout);
}

}  // namespace
}  // namespace ringside::core
