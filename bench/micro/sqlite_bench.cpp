// How long the SQLite backend's calls hold its thread, per route's database work, on a seeded file
// (WAL, synchronous=NORMAL, as `ringside serve` runs it): find_user (/users/:id), one world row
// (/db), 20 rows (/queries?queries=20), the fortunes, and /updates?queries=20's reads plus its
// batched write. Each reports p50, p99 and max per operation (a WAL checkpoint now and then lands
// in some write), and each of our choices is measured next to the peer it was chosen over:
//   - find_user asked from a loop, handed to the worker's SQLite thread and answered back through
//     the loop (what one request alone pays for running SQLite off the loop) against the call
//     itself;
//   - the write: one transaction of per-row prepared UPDATEs (ours) against one UPDATE ... FROM
//     json_each(?) statement over the rows as a JSON array;
//   - 20 reads: one read transaction around them (ours) against autocommit per read, where each
//     SELECT takes and drops the WAL read lock itself.
// After the table it prints each pair's ratio (ours / peer; below 1 means ours is faster).
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/event_loop.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_database.hpp"

namespace {

using namespace ringside;
using Clock = std::chrono::steady_clock;

constexpr int kRows = 20;

class Seeded {
 public:
  Seeded() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ringside-sqlite-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    directory_ = pattern;
    path_ = directory_ + "/bench.db";
    db::prepare_sqlite(path_);
  }
  ~Seeded() { std::filesystem::remove_all(directory_); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string path_;
};

Seeded& seeded() {
  static Seeded instance;
  return instance;
}

class Discard final : public db::Sink {
 public:
  void on_user(const db::UserRow& row) override { benchmark::DoNotOptimize(row.name.data()); }
  void on_world(std::size_t, const db::WorldRow& row) override { rows[found++ % kRows] = row; }
  void on_fortune(const db::FortuneRow& row) override { benchmark::DoNotOptimize(row.id); }
  void on_done(db::Outcome outcome, std::string_view) override {
    if (outcome != db::Outcome::kOk) std::abort();
  }
  std::array<db::WorldRow, kRows> rows{};
  std::size_t found = 0;
};

std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t x = (state += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Distinct ids in 1..10000, sorted, as /updates writes them.
void pick_ids(std::uint64_t& state, std::array<std::int32_t, kRows>& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    while (true) {
      ids[i] = static_cast<std::int32_t>(next_random(state) % 10'000) + 1;
      if (std::find(ids.begin(), ids.begin() + static_cast<long>(i), ids[i]) ==
          ids.begin() + static_cast<long>(i)) {
        break;
      }
    }
  }
  std::sort(ids.begin(), ids.end());
}

// Times each iteration's operation; reports p50/p99/max in microseconds.
template <typename Operation>
void timed(benchmark::State& state, Operation operation) {
  std::vector<double> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    const auto start = Clock::now();
    operation();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  auto at = [&](double fraction) {
    return samples[std::min(samples.size() - 1, static_cast<std::size_t>(fraction * samples.size()))];
  };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = samples.back();
}

// One SQLite thread's connection, called directly: the time each operation holds that thread.
struct Fixture {
  db::sqlite::SqliteConnection connection{seeded().path()};
  std::uint64_t random = 42;
};

void write_or_abort(db::sqlite::SqliteConnection& connection, std::span<const db::WorldRow> rows) {
  if (connection.try_write(rows) != db::sqlite::WriteAttempt::kDone) std::abort();
}

void BM_FindUser(benchmark::State& state) {
  Fixture f;
  Discard sink;
  timed(state, [&] {
    f.connection.find_user(static_cast<std::int64_t>(next_random(f.random) % 10'000) + 1, sink);
  });
}

void BM_OneWorld(benchmark::State& state) {
  Fixture f;
  Discard sink;
  timed(state, [&] {
    const std::int32_t id = static_cast<std::int32_t>(next_random(f.random) % 10'000) + 1;
    f.connection.read_worlds({&id, 1}, sink);
  });
}

void BM_TwentyWorlds(benchmark::State& state) {
  Fixture f;
  Discard sink;
  std::array<std::int32_t, kRows> ids{};
  timed(state, [&] {
    pick_ids(f.random, ids);
    f.connection.read_worlds(ids, sink);
  });
}

void BM_Fortunes(benchmark::State& state) {
  Fixture f;
  Discard sink;
  timed(state, [&] { f.connection.read_fortunes(sink); });
}

// /updates?queries=20's database work: the 20 reads, then the write, as the route runs them.
void BM_UpdateTwenty(benchmark::State& state) {
  Fixture f;
  Discard sink;
  std::array<std::int32_t, kRows> ids{};
  std::array<db::WorldRow, kRows> rows{};
  timed(state, [&] {
    pick_ids(f.random, ids);
    f.connection.read_worlds(ids, sink);
    for (int i = 0; i < kRows; ++i) {
      rows[i] = {ids[i], static_cast<std::int32_t>(next_random(f.random) % 10'000) + 1};
    }
    write_or_abort(f.connection, rows);
  });
}

// The peers: the same connection settings, raw sqlite3.
struct RawFixture {
  sqlite3* db = nullptr;
  std::uint64_t random = 42;
  RawFixture() {
    sqlite3_open_v2(seeded().path().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                    nullptr);
    sqlite3_exec(db, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr);
  }
  ~RawFixture() { sqlite3_close_v2(db); }
  sqlite3_stmt* prepare(const char* sql) const {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
      std::abort();
    }
    return statement;
  }
  static void run(sqlite3_stmt* statement) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
    }
    sqlite3_reset(statement);
  }
};

void BM_PeerTwentyWorldsInAutocommit(benchmark::State& state) {
  RawFixture f;
  sqlite3_stmt* select = f.prepare("SELECT id, randomnumber FROM world WHERE id = ?1");
  std::array<std::int32_t, kRows> ids{};
  timed(state, [&] {
    pick_ids(f.random, ids);
    for (std::int32_t id : ids) {
      sqlite3_bind_int(select, 1, id);
      if (sqlite3_step(select) == SQLITE_ROW) benchmark::DoNotOptimize(sqlite3_column_int(select, 1));
      sqlite3_reset(select);
    }
  });
  sqlite3_finalize(select);
}

void BM_PeerUpdateTwentyAsOneJsonStatement(benchmark::State& state) {
  RawFixture f;
  sqlite3_stmt* select = f.prepare("SELECT id, randomnumber FROM world WHERE id = ?1");
  sqlite3_stmt* update = f.prepare(
      "UPDATE world SET randomnumber = v.n FROM (SELECT value ->> 0 AS id, value ->> 1 AS n "
      "FROM json_each(?1)) AS v WHERE world.id = v.id");
  std::array<std::int32_t, kRows> ids{};
  char json[kRows * 24];
  timed(state, [&] {
    pick_ids(f.random, ids);
    for (std::int32_t id : ids) {
      sqlite3_bind_int(select, 1, id);
      if (sqlite3_step(select) == SQLITE_ROW) benchmark::DoNotOptimize(sqlite3_column_int(select, 1));
      sqlite3_reset(select);
    }
    int length = 0;
    json[length++] = '[';
    for (int i = 0; i < kRows; ++i) {
      length += std::snprintf(json + length, sizeof json - static_cast<std::size_t>(length),
                              "%s[%d,%d]", i > 0 ? "," : "", ids[i],
                              static_cast<int>(next_random(f.random) % 10'000) + 1);
    }
    json[length++] = ']';
    sqlite3_bind_text(update, 1, json, length, SQLITE_STATIC);
    if (sqlite3_step(update) != SQLITE_DONE) std::abort();
    sqlite3_reset(update);
  });
  sqlite3_finalize(select);
  sqlite3_finalize(update);
}

// The same find_user through the worker's side: asked on a loop, handed to the SQLite reader
// thread at the end of the turn, answered back through the loop's eventfd.
class Counted final : public db::Sink {
 public:
  void on_user(const db::UserRow& row) override { benchmark::DoNotOptimize(row.name.data()); }
  void on_done(db::Outcome outcome, std::string_view) override {
    if (outcome != db::Outcome::kOk) std::abort();
    ++done;
  }
  std::uint64_t done = 0;
};

void BM_FindUserThroughItsThread(benchmark::State& state) {
  core::EventLoop loop;
  loop.refresh_now();
  auto database = db::open_sqlite_database(seeded().path(), 5, loop);
  Counted sink;
  std::uint64_t random = 42;
  timed(state, [&] {
    const std::uint64_t before = sink.done;
    database->find_user(static_cast<std::int64_t>(next_random(random) % 10'000) + 1, sink);
    database->after_events();
    while (sink.done == before) loop.run_once(std::chrono::milliseconds(100));
  });
}

BENCHMARK(BM_FindUser);
BENCHMARK(BM_FindUserThroughItsThread);
BENCHMARK(BM_OneWorld);
BENCHMARK(BM_TwentyWorlds);
BENCHMARK(BM_PeerTwentyWorldsInAutocommit);
BENCHMARK(BM_Fortunes);
BENCHMARK(BM_UpdateTwenty);
BENCHMARK(BM_PeerUpdateTwentyAsOneJsonStatement);

// Collects each benchmark's mean time per iteration for the ratios printed after the table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) means_[run.benchmark_name()] = run.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    print("BM_FindUserThroughItsThread", "BM_FindUser");
    print("BM_TwentyWorlds", "BM_PeerTwentyWorldsInAutocommit");
    print("BM_UpdateTwenty", "BM_PeerUpdateTwentyAsOneJsonStatement");
  }

 private:
  void print(const std::string& ours, const std::string& peer) const {
    auto a = means_.find(ours);
    auto b = means_.find(peer);
    if (a == means_.end() || b == means_.end()) return;
    std::printf("%-18s / %-42s = %.2f\n", ours.c_str(), peer.c_str(), a->second / b->second);
  }
  std::map<std::string, double> means_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
