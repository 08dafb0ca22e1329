#include "db/sqlite_database.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "core/event_loop.hpp"
#include "db/schema.hpp"
#include "db/sqlite_checkpointer.hpp"
#include "sqlite_test_support.hpp"
#include "stalling_vfs.hpp"

namespace ringside::db {
namespace {

using namespace std::chrono_literals;
using core::Clock;
using core::TimePoint;
using test_support::RawConnection;
using test_support::Recorder;
using test_support::UserCopy;

constexpr double kTimeoutS = 5;
// Generous: the threads run when a busy 2-core machine lets them.
constexpr auto kBound = 20s;

std::string prepared(std::string path) {
  prepare_sqlite(path);
  return path;
}

// Drives a database the way a worker's loop does: hand this turn's operations to the SQLite
// threads, wait for their answers or the next deadline, deliver, give up on what timed out.
void turn(core::EventLoop& loop, Database& database, core::Duration longest) {
  database.after_events();
  const TimePoint deadline = database.next_deadline();
  core::Duration wait = longest;
  if (deadline != TimePoint::max()) {
    wait = std::clamp<core::Duration>(deadline - Clock::now(), core::Duration::zero(), longest);
  }
  loop.run_once(wait);
  database.on_timer(loop.now());
}

// Turns until `done()` holds; false if it still does not after `bound`.
template <typename Predicate>
bool turn_until(core::EventLoop& loop, Database& database, Predicate done,
                core::Duration bound = kBound) {
  const TimePoint give_up = Clock::now() + bound;
  while (!done()) {
    if (Clock::now() >= give_up) return false;
    turn(loop, database, 10ms);
  }
  return true;
}

// Turns for `window` whatever happens: to see that something does NOT happen while a lock is held.
void turn_for(core::EventLoop& loop, Database& database, core::Duration window) {
  const TimePoint end = Clock::now() + window;
  while (Clock::now() < end) turn(loop, database, 5ms);
}

class SqliteDatabaseTest : public ::testing::Test {
 protected:
  SqliteDatabaseTest() {
    loop_.refresh_now();
    database_ = open_sqlite_database(path_, kTimeoutS, loop_);
  }

  [[nodiscard]] std::int32_t stored_number(std::int32_t id) {
    return std::stoi(raw_.value("SELECT randomnumber FROM world WHERE id = " + std::to_string(id)));
  }

  // Runs the loop until every recorder has its on_done.
  template <typename... Recorders>
  [[nodiscard]] bool answered(const Recorders&... recorders) {
    return turn_until(loop_, *database_, [&] { return ((recorders.done > 0) && ...); });
  }

  test_support::TempDirectory directory_;
  std::string path_ = prepared(directory_.file("test.db"));
  core::EventLoop loop_;
  std::unique_ptr<Database> database_;
  RawConnection raw_{path_};
};

TEST_F(SqliteDatabaseTest, FindsAUserWithItsExactValues) {
  Recorder first;
  database_->find_user(1, first);
  ASSERT_TRUE(answered(first));
  EXPECT_EQ(first.done, 1);
  EXPECT_EQ(first.outcome, Outcome::kOk);
  EXPECT_EQ(first.users,
            (std::vector<UserCopy>{{1, "User 1", "user1@example.com", "2024-01-01T00:00:01Z"}}));

  Recorder last;
  database_->find_user(10'000, last);
  ASSERT_TRUE(answered(last));
  EXPECT_EQ(last.users, (std::vector<UserCopy>{{10'000, "User 10000", "user10000@example.com",
                                                 "2024-01-01T02:46:40Z"}}));
}

TEST_F(SqliteDatabaseTest, AnswersComeOnALaterTurnNotInsideTheCall) {
  Recorder recorder;
  database_->find_user(3, recorder);
  EXPECT_EQ(recorder.done, 0) << "answered inside the call: SQLite ran on the loop's thread";
  EXPECT_NE(database_->next_deadline(), TimePoint::max()) << "an operation in flight has no deadline";
  ASSERT_TRUE(answered(recorder));
  EXPECT_EQ(recorder.users.size(), 1u);
  EXPECT_EQ(database_->next_deadline(), TimePoint::max());
}

TEST_F(SqliteDatabaseTest, AMissingUserIsNoRowAndOk) {
  for (std::int64_t id : {std::int64_t{10'001}, std::int64_t{0}, std::int64_t{-1},
                          std::int64_t{9'223'372'036'854'775'807}}) {
    Recorder recorder;
    database_->find_user(id, recorder);
    ASSERT_TRUE(answered(recorder)) << id;
    EXPECT_EQ(recorder.done, 1) << id;
    EXPECT_EQ(recorder.outcome, Outcome::kOk) << id;
    EXPECT_TRUE(recorder.users.empty()) << id;
  }
}

TEST_F(SqliteDatabaseTest, ManyOperationsOfOneTurnAreEachAnsweredOnce) {
  std::array<Recorder, 300> recorders;
  for (std::size_t i = 0; i < recorders.size(); ++i) {
    database_->find_user(static_cast<std::int64_t>(i + 1), recorders[i]);
  }
  ASSERT_TRUE(turn_until(loop_, *database_, [&] {
    return std::all_of(recorders.begin(), recorders.end(), [](const Recorder& r) { return r.done > 0; });
  }));
  for (std::size_t i = 0; i < recorders.size(); ++i) {
    EXPECT_EQ(recorders[i].done, 1) << i;
    ASSERT_EQ(recorders[i].users.size(), 1u) << i;
    EXPECT_EQ(recorders[i].users[0].id, static_cast<std::int64_t>(i + 1));
  }
}

TEST_F(SqliteDatabaseTest, ReadsWorldsByIndexAndSkipsMissingIds) {
  const std::array<std::int32_t, 5> ids = {7, 10'001, 7, 10'000, 0};
  Recorder recorder;
  database_->read_worlds(ids, recorder);
  ASSERT_TRUE(answered(recorder));
  ASSERT_EQ(recorder.done, 1);
  EXPECT_EQ(recorder.outcome, Outcome::kOk);
  ASSERT_EQ(recorder.worlds.size(), 3u);
  const std::array<std::size_t, 3> indexes = {0, 2, 3};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& [index, row] = recorder.worlds[i];
    EXPECT_EQ(index, indexes[i]);
    EXPECT_EQ(row.id, ids[index]);
    EXPECT_EQ(row.random_number, world_random_number(ids[index]));
  }
}

TEST_F(SqliteDatabaseTest, ReadsTechEmpowersTwelveFortunes) {
  Recorder recorder;
  database_->read_fortunes(recorder);
  ASSERT_TRUE(answered(recorder));
  EXPECT_EQ(recorder.done, 1);
  EXPECT_EQ(recorder.outcome, Outcome::kOk);
  ASSERT_EQ(recorder.fortunes.size(), kFortunes.size());
  std::sort(recorder.fortunes.begin(), recorder.fortunes.end());
  for (std::size_t i = 0; i < kFortunes.size(); ++i) {
    EXPECT_EQ(recorder.fortunes[i].first, static_cast<std::int32_t>(i + 1));
    EXPECT_EQ(recorder.fortunes[i].second, kFortunes[i]);
  }
}

// The operation's inputs are copied when it is asked: the caller's span may change at once.
TEST_F(SqliteDatabaseTest, WritesWorldsAndCommitsThem) {
  std::array<WorldRow, 3> rows = {{{1, 4242}, {2, 4343}, {9'999, 1}}};
  const std::array<WorldRow, 3> asked = rows;
  Recorder write;
  database_->write_worlds(rows, write);
  rows.fill({1, 1});
  ASSERT_TRUE(answered(write));
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kOk) << write.detail;
  EXPECT_EQ(database_->next_deadline(), TimePoint::max());

  const std::array<std::int32_t, 3> ids = {1, 2, 9'999};
  Recorder read;
  database_->read_worlds(ids, read);
  ASSERT_TRUE(answered(read));
  ASSERT_EQ(read.worlds.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(read.worlds[i].second.random_number, asked[i].random_number);
  // Committed: another connection sees it too.
  EXPECT_EQ(stored_number(2), 4343);
}

TEST_F(SqliteDatabaseTest, AWriteWaitsForTheLockWhileReadsGoOn) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const std::array<WorldRow, 2> rows = {{{3, 1111}, {4, 2222}}};
  Recorder write;
  database_->write_worlds(rows, write);

  // A reader is not kept out by the writer in WAL mode, nor by the write waiting for the lock.
  Recorder read;
  database_->find_user(5, read);
  ASSERT_TRUE(answered(read));
  EXPECT_EQ(read.outcome, Outcome::kOk);
  EXPECT_EQ(read.users.size(), 1u);
  turn_for(loop_, *database_, 50ms);
  EXPECT_EQ(write.done, 0) << "answered while another connection held the write lock";

  ASSERT_EQ(raw_.exec("COMMIT"), SQLITE_OK);
  ASSERT_TRUE(answered(write));
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kOk) << write.detail;
  EXPECT_EQ(database_->next_deadline(), TimePoint::max());
  EXPECT_EQ(stored_number(3), 1111);
  EXPECT_EQ(stored_number(4), 2222);
}

TEST_F(SqliteDatabaseTest, WaitingWritesGoInTheOrderAsked) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const std::array<WorldRow, 1> first_rows = {{{5, 100}}};
  const std::array<WorldRow, 1> second_rows = {{{5, 200}}};
  Recorder first;
  Recorder second;
  database_->write_worlds(first_rows, first);
  database_->write_worlds(second_rows, second);
  turn_for(loop_, *database_, 20ms);
  ASSERT_EQ(raw_.exec("COMMIT"), SQLITE_OK);
  const std::array<WorldRow, 1> third_rows = {{{5, 300}}};
  Recorder third;
  database_->write_worlds(third_rows, third);

  ASSERT_TRUE(answered(first, second, third));
  EXPECT_EQ(first.outcome, Outcome::kOk);
  EXPECT_EQ(second.outcome, Outcome::kOk);
  EXPECT_EQ(third.outcome, Outcome::kOk);
  EXPECT_EQ(stored_number(5), 300) << "the writes to one row were not run in the order asked";
}

TEST(SqliteDatabaseTimeout, AWriteGivesUpWithBusyWhenTheLockStaysTakenPastTheTimeout) {
  test_support::TempDirectory directory;
  const std::string path = prepared(directory.file("busy.db"));
  RawConnection raw(path);
  core::EventLoop loop;
  loop.refresh_now();
  constexpr double kShortTimeoutS = 0.3;
  auto database = open_sqlite_database(path, kShortTimeoutS, loop);

  ASSERT_EQ(raw.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const std::array<WorldRow, 1> rows = {{{8, 4242}}};
  Recorder write;
  loop.refresh_now();  // deadlines count from the loop's time, the start of its turn
  const TimePoint asked = loop.now();
  database->write_worlds(rows, write);
  ASSERT_TRUE(turn_until(loop, *database, [&] { return write.done > 0; }));
  const auto waited = Clock::now() - asked;
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kBusy);
  EXPECT_NE(write.detail.find("--db-timeout"), std::string::npos) << write.detail;
  EXPECT_GE(waited, 300ms) << "gave up before the timeout";
  EXPECT_EQ(database->next_deadline(), TimePoint::max());

  // Given up means not written later either, once the lock is free.
  ASSERT_EQ(raw.exec("ROLLBACK"), SQLITE_OK);
  const std::array<WorldRow, 1> next_rows = {{{9, 77}}};
  Recorder next;
  database->write_worlds(next_rows, next);
  ASSERT_TRUE(turn_until(loop, *database, [&] { return next.done > 0; }));
  EXPECT_EQ(next.outcome, Outcome::kOk) << next.detail;
  EXPECT_EQ(std::stoi(raw.value("SELECT randomnumber FROM world WHERE id = 8")), world_random_number(8));
  EXPECT_EQ(std::stoi(raw.value("SELECT randomnumber FROM world WHERE id = 9")), 77);
}

// The disk stops (the stalling VFS holds every write inside SQLite, as a frozen filesystem holds
// the thread in the kernel): the loop still answers the write at its timeout, reads still go on,
// and once the disk answers again so does the database.
TEST(SqliteDatabaseStall, AStalledDiskCostsItsRequestsTheirTimeoutNotTheLoop) {
  test_support::TempDirectory directory;
  const std::string path = prepared(directory.file("stall.db"));
  test_support::StallingVfs disk;
  core::EventLoop loop;
  loop.refresh_now();
  constexpr double kShortTimeoutS = 0.3;
  auto database = open_sqlite_database(path, kShortTimeoutS, loop);

  disk.stall();
  const std::array<WorldRow, 2> rows = {{{30, 1}, {31, 2}}};
  Recorder write;
  loop.refresh_now();  // deadlines count from the loop's time, the start of its turn
  const TimePoint asked = loop.now();
  database->write_worlds(rows, write);
  database->after_events();
  ASSERT_TRUE(disk.wait_for_held(1, kBound)) << "the write never reached the disk";

  Recorder read;
  database->find_user(30, read);
  ASSERT_TRUE(turn_until(loop, *database, [&] { return read.done > 0; }));
  EXPECT_EQ(read.outcome, Outcome::kOk) << "a read queued behind a write stuck on the disk";
  EXPECT_EQ(read.users.size(), 1u);

  ASSERT_TRUE(turn_until(loop, *database, [&] { return write.done > 0; }));
  EXPECT_GE(disk.held(), 1) << "the disk let the write through: this proves nothing";
  EXPECT_EQ(write.outcome, Outcome::kTimeout);
  EXPECT_NE(write.detail.find("--db-timeout"), std::string::npos) << write.detail;
  EXPECT_GE(Clock::now() - asked, 300ms);

  disk.release();
  const std::array<WorldRow, 1> after_rows = {{{32, 3}}};
  Recorder after;
  database->write_worlds(after_rows, after);
  ASSERT_TRUE(turn_until(loop, *database, [&] { return after.done > 0; }));
  EXPECT_EQ(after.outcome, Outcome::kOk) << after.detail;
  EXPECT_EQ(write.done, 1) << "the timed-out write was answered twice";
  database.reset();
  RawConnection raw(path);
  EXPECT_EQ(std::stoi(raw.value("SELECT randomnumber FROM world WHERE id = 32")), 3);
}

TEST_F(SqliteDatabaseTest, ARefusedWriteFailsAndTheConnectionStaysUsable) {
  ASSERT_EQ(raw_.exec("CREATE TRIGGER refuse BEFORE UPDATE ON world WHEN NEW.randomnumber = 4242 "
                      "BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END"),
            SQLITE_OK);
  // The first row is written before the second is refused: the rollback must undo it.
  const std::array<WorldRow, 2> rows = {{{10, 77}, {11, 4242}}};
  Recorder refused;
  database_->write_worlds(rows, refused);
  ASSERT_TRUE(answered(refused));
  EXPECT_EQ(refused.done, 1);
  EXPECT_EQ(refused.outcome, Outcome::kFailed);
  EXPECT_NE(refused.detail.find("refused by a test trigger"), std::string::npos) << refused.detail;
  EXPECT_EQ(stored_number(10), world_random_number(10));
  // No transaction left open: another connection can take the write lock.
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  ASSERT_EQ(raw_.exec("ROLLBACK"), SQLITE_OK);

  const std::array<WorldRow, 1> fine = {{{10, 78}}};
  Recorder next;
  database_->write_worlds(fine, next);
  ASSERT_TRUE(answered(next));
  EXPECT_EQ(next.outcome, Outcome::kOk);
  EXPECT_EQ(stored_number(10), 78);
}

TEST_F(SqliteDatabaseTest, AFailedReadIsReportedAndTheNextReadWorks) {
  ASSERT_EQ(raw_.exec("ALTER TABLE fortune RENAME TO fortune_away"), SQLITE_OK);
  Recorder failed;
  database_->read_fortunes(failed);
  ASSERT_TRUE(answered(failed));
  EXPECT_EQ(failed.done, 1);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_NE(failed.detail.find("fortune"), std::string::npos) << failed.detail;

  ASSERT_EQ(raw_.exec("ALTER TABLE fortune_away RENAME TO fortune"), SQLITE_OK);
  Recorder again;
  database_->read_fortunes(again);
  ASSERT_TRUE(answered(again));
  EXPECT_EQ(again.outcome, Outcome::kOk);
  EXPECT_EQ(again.fortunes.size(), kFortunes.size());
}

TEST_F(SqliteDatabaseTest, AFailedReadOfSeveralRowsLeavesNoTransactionOpen) {
  ASSERT_EQ(raw_.exec("ALTER TABLE world RENAME TO world_away"), SQLITE_OK);
  const std::array<std::int32_t, 3> ids = {1, 2, 3};
  Recorder failed;
  database_->read_worlds(ids, failed);
  ASSERT_TRUE(answered(failed));
  EXPECT_EQ(failed.done, 1);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_NE(failed.detail.find("world"), std::string::npos) << failed.detail;
  ASSERT_EQ(raw_.exec("ALTER TABLE world_away RENAME TO world"), SQLITE_OK);

  // A read transaction left open would pin an old snapshot: this read would not see the write.
  const std::array<WorldRow, 1> rows = {{{1, 99}}};
  Recorder write;
  database_->write_worlds(rows, write);
  ASSERT_TRUE(answered(write));
  EXPECT_EQ(write.outcome, Outcome::kOk) << write.detail;
  Recorder read;
  database_->read_worlds(ids, read);
  ASSERT_TRUE(answered(read));
  EXPECT_EQ(read.outcome, Outcome::kOk);
  ASSERT_EQ(read.worlds.size(), 3u);
  EXPECT_EQ(read.worlds[0].second.random_number, 99);
  EXPECT_EQ(stored_number(1), 99);
}

// /updates starts its write from the reads' on_done.
class WriteAfterRead final : public Sink {
 public:
  explicit WriteAfterRead(Database& database) : database_(database) {}
  void on_world(std::size_t index, const WorldRow& row) override {
    rows_[index] = {row.id, row.random_number + 1};
  }
  void on_done(Outcome outcome, std::string_view) override {
    outcomes.push_back(outcome);
    if (outcomes.size() == 1) database_.write_worlds(rows_, *this);
  }
  std::vector<Outcome> outcomes;

 private:
  Database& database_;
  std::array<WorldRow, 2> rows_{};
};

TEST_F(SqliteDatabaseTest, AWriteStartedFromAReadsOnDoneCompletes) {
  const std::array<std::int32_t, 2> ids = {20, 21};
  WriteAfterRead sink(*database_);
  database_->read_worlds(ids, sink);
  ASSERT_TRUE(turn_until(loop_, *database_, [&] { return sink.outcomes.size() >= 2; }));
  EXPECT_EQ(sink.outcomes, (std::vector<Outcome>{Outcome::kOk, Outcome::kOk}));
  EXPECT_EQ(stored_number(20), world_random_number(20) + 1);
  EXPECT_EQ(stored_number(21), world_random_number(21) + 1);
}

TEST_F(SqliteDatabaseTest, OperationsNotAnsweredEndWhenTheDatabaseCloses) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const std::array<WorldRow, 1> rows = {{{12, 1}}};
  Recorder write;
  database_->write_worlds(rows, write);
  Recorder never_handed_over;
  database_->find_user(1, never_handed_over);  // still in this turn's batch
  turn_for(loop_, *database_, 20ms);
  EXPECT_EQ(write.done, 0);
  Recorder last;
  database_->find_user(2, last);
  database_.reset();
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kUnavailable);
  EXPECT_EQ(never_handed_over.done, 1);
  EXPECT_EQ(last.done, 1);
  EXPECT_EQ(last.outcome, Outcome::kUnavailable);
  ASSERT_EQ(raw_.exec("ROLLBACK"), SQLITE_OK);
}

// The WAL is checkpointed by the file's checkpointer thread, not inside a commit.
TEST_F(SqliteDatabaseTest, CheckpointsRunOnTheCheckpointerThread) {
  const std::shared_ptr<sqlite::Checkpointer> checkpointer = sqlite::Checkpointer::for_file(path_);
  const std::uint64_t before = checkpointer->checkpoints();
  // Each commit of 20 spread rows adds about 14 pages to the WAL: 200 of them pass the
  // checkpoint threshold of 1000 pages more than twice.
  std::array<WorldRow, 20> rows{};
  for (int commit = 0; commit < 200; ++commit) {
    for (int i = 0; i < 20; ++i) rows[i] = {1 + i * 500 + commit % 500, commit + 1};
    Recorder write;
    database_->write_worlds(rows, write);
    ASSERT_TRUE(answered(write));
    ASSERT_EQ(write.outcome, Outcome::kOk) << write.detail;
  }
  // The thread runs when the scheduler lets it: wait for it, with a generous bound.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (checkpointer->checkpoints() == before && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_GT(checkpointer->checkpoints(), before);
}

// Steady writes with reads beside them, as /updates makes: checkpoints must catch up with the
// writers now and then, so that the WAL starts over instead of growing without end (it reached
// 3.4 GB in the torture suite's SQLite outages before the checkpointer escalated).
TEST_F(SqliteDatabaseTest, TheWalStaysBoundedUnderSteadyWrites) {
  constexpr int kCommits = 2'000;  // about 14 WAL pages each: 110 MB if the WAL never restarts
  std::array<WorldRow, 20> rows{};
  std::uintmax_t largest = 0;
  for (int commit = 0; commit < kCommits; ++commit) {
    for (int i = 0; i < 20; ++i) rows[i] = {1 + i * 500 + commit % 500, commit + 1};
    Recorder write;
    Recorder read;
    database_->write_worlds(rows, write);
    database_->find_user(1 + commit % 10'000, read);
    ASSERT_TRUE(answered(write, read));
    ASSERT_EQ(write.outcome, Outcome::kOk) << write.detail;
    if (commit % 100 == 99) {
      std::error_code ignored;
      largest = std::max(largest, std::filesystem::file_size(path_ + "-wal", ignored));
    }
  }
  EXPECT_LE(largest, std::uintmax_t{40} << 20) << "the WAL grew to " << (largest >> 20) << " MB";
}

TEST(SqliteDatabaseOpen, AFileThatIsNotThereThrowsNamingIt) {
  test_support::TempDirectory directory;
  core::EventLoop loop;
  const std::string path = directory.file("never-prepared.db");
  try {
    (void)open_sqlite_database(path, kTimeoutS, loop);
    FAIL() << "opened a file that does not exist";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ringside::db
