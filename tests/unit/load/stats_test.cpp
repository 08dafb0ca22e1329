#include "load/stats.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ringside::load {
namespace {

using Counts = std::vector<std::uint64_t>;

Stats worker_a() {
  Stats s;
  s.started = 10;
  s.in_flight = 1;
  s.warmup_requests = 4;
  s.warmup_completed = 3;
  s.slow_connects = 2;
  s.writes = 9;
  s.connections_opened = 2;
  s.connect_failures = 1;
  s.bytes_read = 1000;
  s.bytes_written = 300;
  for (std::size_t second : {0, 0, 1, 1, 1, 2}) s.count_completion(second);
  s.count_error(ErrorClass::kReset, 2);
  s.count_error(ErrorClass::kTimeout, 1);
  s.status[200] = 5;
  s.status[404] = 1;
  for (std::uint64_t us : {100, 200, 300}) s.latency.record(us);
  s.latency_uncorrected.record(90);
  s.connect.record(50);
  s.waiting.record(80);
  return s;
}

Stats worker_b() {
  Stats s;
  s.started = 7;
  s.in_flight = 2;
  s.warmup_requests = 1;
  s.warmup_completed = 1;
  s.slow_connects = 5;
  s.writes = 4;
  s.connections_opened = 3;
  s.bytes_read = 500;
  s.bytes_written = 150;
  for (std::size_t second : {0, 4}) s.count_completion(second);
  s.count_error(ErrorClass::kReset, 1);
  s.count_error(ErrorClass::kConnectRefused, 2);
  s.status[200] = 2;
  s.status[503] = 3;
  s.status[0] = 1;  // a code out of range
  for (std::uint64_t us : {50, 5000}) s.latency.record(us);
  s.latency_uncorrected.record(60);
  s.connect.record(70);
  s.waiting.record(40);
  return s;
}

TEST(Stats, CountCompletionFillsItsSecond) {
  Stats s;
  s.count_completion(3);
  s.count_completion(3);
  s.count_completion(0);
  EXPECT_EQ(s.completed, 3u);
  EXPECT_EQ(s.per_second, (Counts{1, 0, 0, 2}));
}

TEST(Stats, CountErrorCountsTheClassAndTheTotal) {
  Stats s;
  s.count_error(ErrorClass::kMalformed, 3);
  s.count_error(ErrorClass::kClosed, 1);
  EXPECT_EQ(s.errored, 4u);
  EXPECT_EQ(s.errors[static_cast<std::size_t>(ErrorClass::kMalformed)], 3u);
  EXPECT_EQ(s.errors[static_cast<std::size_t>(ErrorClass::kClosed)], 1u);
}

TEST(Stats, MergeSumsEveryCounter) {
  Stats total = worker_a();
  total.merge(worker_b());
  EXPECT_EQ(total.started, 17u);
  EXPECT_EQ(total.completed, 8u);
  EXPECT_EQ(total.errored, 6u);
  EXPECT_EQ(total.in_flight, 3u);
  EXPECT_EQ(total.warmup_requests, 5u);
  EXPECT_EQ(total.warmup_completed, 4u);
  EXPECT_EQ(total.slow_connects, 7u);
  EXPECT_EQ(total.writes, 13u);
  EXPECT_EQ(total.connections_opened, 5u);
  EXPECT_EQ(total.connect_failures, 1u);
  EXPECT_EQ(total.bytes_read, 1500u);
  EXPECT_EQ(total.bytes_written, 450u);
  EXPECT_EQ(total.errors[static_cast<std::size_t>(ErrorClass::kReset)], 3u);
  EXPECT_EQ(total.errors[static_cast<std::size_t>(ErrorClass::kTimeout)], 1u);
  EXPECT_EQ(total.errors[static_cast<std::size_t>(ErrorClass::kConnectRefused)], 2u);
  EXPECT_EQ(total.errors[static_cast<std::size_t>(ErrorClass::kMalformed)], 0u);
  EXPECT_EQ(total.status[200], 7u);
  EXPECT_EQ(total.status[404], 1u);
  EXPECT_EQ(total.status[503], 3u);
  EXPECT_EQ(total.status[0], 1u);
  EXPECT_EQ(total.status_class(2), 7u);
  EXPECT_EQ(total.status_class(4), 1u);
  EXPECT_EQ(total.status_class(5), 3u);
  EXPECT_EQ(total.status_class(1), 0u);
}

TEST(Stats, MergeCombinesHistograms) {
  Stats total = worker_a();
  total.merge(worker_b());
  EXPECT_EQ(total.latency.count(), 5u);
  EXPECT_EQ(total.latency.min(), 50u);
  EXPECT_EQ(total.latency.max(), 5000u);
  EXPECT_DOUBLE_EQ(total.latency.mean(), (100 + 200 + 300 + 50 + 5000) / 5.0);
  EXPECT_EQ(total.latency_uncorrected.count(), 2u);
  EXPECT_EQ(total.latency_uncorrected.min(), 60u);
  EXPECT_EQ(total.connect.count(), 2u);
  EXPECT_EQ(total.connect.max(), 70u);
  EXPECT_EQ(total.waiting.count(), 2u);
  EXPECT_EQ(total.waiting.min(), 40u);
}

TEST(Stats, MergeAddsHandshakesAndKeepsTheFirstNegotiation) {
  Stats a;
  a.tls.used = true;
  a.tls.handshakes = 3;
  a.tls.resumed = 1;
  a.tls_handshake.record(500);
  Stats b;
  b.tls.used = true;
  b.tls.version = "TLSv1.3";
  b.tls.cipher = "TLS_AES_256_GCM_SHA384";
  b.tls.group = "x25519";
  b.tls.alpn = "http/1.1";
  b.tls.handshakes = 4;
  b.tls.resumed = 4;
  b.tls_handshake.record(700);
  Stats c = b;
  c.tls.version = "TLSv1.2";
  a.merge(b);  // a had no handshake completed: b's negotiation is the first
  a.merge(c);
  EXPECT_TRUE(a.tls.used);
  EXPECT_EQ(a.tls.version, "TLSv1.3");
  EXPECT_EQ(a.tls.cipher, "TLS_AES_256_GCM_SHA384");
  EXPECT_EQ(a.tls.alpn, "http/1.1");
  EXPECT_EQ(a.tls.handshakes, 11u);
  EXPECT_EQ(a.tls.resumed, 9u);
  EXPECT_EQ(a.tls_handshake.count(), 3u);
  Stats plain;
  plain.merge(Stats{});
  EXPECT_FALSE(plain.tls.used);
}

// Slot i is second i of the run in every worker, so merged slots add position by position,
// whichever worker ran longer.
TEST(Stats, MergeAlignsPerSecondSlots) {
  Stats shorter_first = worker_a();  // {2, 3, 1}
  shorter_first.merge(worker_b());   // {1, 0, 0, 0, 1}
  EXPECT_EQ(shorter_first.per_second, (Counts{3, 3, 1, 0, 1}));

  Stats longer_first = worker_b();
  longer_first.merge(worker_a());
  EXPECT_EQ(longer_first.per_second, (Counts{3, 3, 1, 0, 1}));
}

TEST(Stats, MergingAnEmptyStatsChangesNothing) {
  Stats total = worker_a();
  total.merge(Stats{});
  const Stats alone = worker_a();
  EXPECT_EQ(total.completed, alone.completed);
  EXPECT_EQ(total.per_second, alone.per_second);
  EXPECT_EQ(total.latency.count(), alone.latency.count());
  EXPECT_EQ(total.latency.min(), alone.latency.min());

  Stats empty;
  empty.merge(worker_a());
  EXPECT_EQ(empty.per_second, alone.per_second);
  EXPECT_EQ(empty.latency.min(), alone.latency.min());
  EXPECT_EQ(empty.errored, alone.errored);
}

TEST(Stats, MergeKeepsConservation) {
  // started = completed + failed + in flight holds per worker, so it holds for the sum.
  Stats a = worker_a();
  Stats b = worker_b();
  a.started = a.completed + a.errored + a.in_flight;
  b.started = b.completed + b.errored + b.in_flight;
  a.merge(b);
  EXPECT_EQ(a.started, a.completed + a.errored + a.in_flight);
}

}  // namespace
}  // namespace ringside::load
