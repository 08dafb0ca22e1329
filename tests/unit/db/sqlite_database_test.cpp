#include "db/sqlite_database.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "core/event_loop.hpp"
#include "db/schema.hpp"
#include "db/sqlite_checkpointer.hpp"
#include "sqlite_test_support.hpp"

namespace ringside::db {
namespace {

using namespace std::chrono_literals;
using core::TimePoint;
using test_support::RawConnection;
using test_support::Recorder;
using test_support::UserCopy;

constexpr double kTimeoutS = 5;

class SqliteDatabaseTest : public ::testing::Test {
 protected:
  SqliteDatabaseTest() {
    loop_.refresh_now();
    database_ = open_sqlite_database(path_, kTimeoutS, loop_);
  }

  [[nodiscard]] std::int32_t stored_number(std::int32_t id) {
    return std::stoi(raw_.value("SELECT randomnumber FROM world WHERE id = " + std::to_string(id)));
  }

  static std::string prepared(std::string path) {
    prepare_sqlite(path);
    return path;
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
  EXPECT_EQ(first.done, 1);
  EXPECT_EQ(first.outcome, Outcome::kOk);
  EXPECT_EQ(first.users,
            (std::vector<UserCopy>{{1, "User 1", "user1@example.com", "2024-01-01T00:00:01Z"}}));

  Recorder last;
  database_->find_user(10'000, last);
  EXPECT_EQ(last.users, (std::vector<UserCopy>{{10'000, "User 10000", "user10000@example.com",
                                                 "2024-01-01T02:46:40Z"}}));
}

TEST_F(SqliteDatabaseTest, AMissingUserIsNoRowAndOk) {
  for (std::int64_t id : {std::int64_t{10'001}, std::int64_t{0}, std::int64_t{-1},
                          std::int64_t{9'223'372'036'854'775'807}}) {
    Recorder recorder;
    database_->find_user(id, recorder);
    EXPECT_EQ(recorder.done, 1) << id;
    EXPECT_EQ(recorder.outcome, Outcome::kOk) << id;
    EXPECT_TRUE(recorder.users.empty()) << id;
  }
}

TEST_F(SqliteDatabaseTest, ReadsWorldsByIndexAndSkipsMissingIds) {
  const std::array<std::int32_t, 5> ids = {7, 10'001, 7, 10'000, 0};
  Recorder recorder;
  database_->read_worlds(ids, recorder);
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
  EXPECT_EQ(recorder.done, 1);
  EXPECT_EQ(recorder.outcome, Outcome::kOk);
  ASSERT_EQ(recorder.fortunes.size(), kFortunes.size());
  std::sort(recorder.fortunes.begin(), recorder.fortunes.end());
  for (std::size_t i = 0; i < kFortunes.size(); ++i) {
    EXPECT_EQ(recorder.fortunes[i].first, static_cast<std::int32_t>(i + 1));
    EXPECT_EQ(recorder.fortunes[i].second, kFortunes[i]);
  }
}

TEST_F(SqliteDatabaseTest, WritesWorldsAtOnceWhenTheLockIsFree) {
  const std::array<WorldRow, 3> rows = {{{1, 4242}, {2, 4343}, {9'999, 1}}};
  Recorder write;
  database_->write_worlds(rows, write);
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kOk);
  EXPECT_EQ(database_->next_deadline(), TimePoint::max());

  const std::array<std::int32_t, 3> ids = {1, 2, 9'999};
  Recorder read;
  database_->read_worlds(ids, read);
  ASSERT_EQ(read.worlds.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(read.worlds[i].second.random_number, rows[i].random_number);
  // Committed: another connection sees it too.
  EXPECT_EQ(stored_number(2), 4343);
}

TEST_F(SqliteDatabaseTest, AWriteWaitsForTheLockOnLaterTurnsWhileReadsGoOn) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const TimePoint asked = loop_.now();
  const std::array<WorldRow, 2> rows = {{{3, 1111}, {4, 2222}}};
  Recorder write;
  database_->write_worlds(rows, write);
  EXPECT_EQ(write.done, 0) << "answered while another connection held the write lock";
  EXPECT_EQ(database_->next_deadline(), asked + 1ms);

  // A reader is not kept out by the writer in WAL mode.
  Recorder read;
  database_->find_user(5, read);
  EXPECT_EQ(read.done, 1);
  EXPECT_EQ(read.outcome, Outcome::kOk);
  EXPECT_EQ(read.users.size(), 1u);

  // Not due yet: nothing tried.
  database_->on_timer(asked + 500us);
  EXPECT_EQ(write.done, 0);
  // Due, still taken: backs off (2 ms after this try).
  database_->on_timer(asked + 1ms);
  EXPECT_EQ(write.done, 0);
  EXPECT_EQ(database_->next_deadline(), asked + 3ms);

  ASSERT_EQ(raw_.exec("COMMIT"), SQLITE_OK);
  database_->on_timer(database_->next_deadline());
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kOk);
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
  ASSERT_EQ(raw_.exec("COMMIT"), SQLITE_OK);
  // While one waits, a new write queues behind it even though the lock is free now.
  Recorder third;
  const std::array<WorldRow, 1> third_rows = {{{6, 300}}};
  database_->write_worlds(third_rows, third);
  EXPECT_EQ(third.done, 0);

  database_->on_timer(database_->next_deadline());
  EXPECT_EQ(first.done, 1);
  EXPECT_EQ(second.done, 1);
  EXPECT_EQ(third.done, 1);
  EXPECT_EQ(stored_number(5), 200);
  EXPECT_EQ(stored_number(6), 300);
}

TEST_F(SqliteDatabaseTest, AWriteGivesUpWithBusyWhenTheLockStaysTakenPastTheTimeout) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const TimePoint asked = loop_.now();
  const std::array<WorldRow, 1> rows = {{{8, 4242}}};
  Recorder write;
  database_->write_worlds(rows, write);

  // Every retry before the timeout finds the lock taken.
  TimePoint now = asked;
  int turns = 0;
  while (write.done == 0 && turns < 100'000) {
    now = database_->next_deadline();
    ASSERT_NE(now, TimePoint::max());
    database_->on_timer(now);
    ++turns;
  }
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kBusy);
  EXPECT_NE(write.detail.find("--db-timeout"), std::string::npos) << write.detail;
  EXPECT_EQ(now, asked + std::chrono::seconds(5)) << "gave up before or after the timeout";
  // Backed off to a few ms: about 5 s / 4 ms retries, not thousands per second.
  EXPECT_LE(turns, 1'300);
  EXPECT_EQ(database_->next_deadline(), TimePoint::max());
  ASSERT_EQ(raw_.exec("ROLLBACK"), SQLITE_OK);
  EXPECT_EQ(stored_number(8), world_random_number(8));
}

TEST_F(SqliteDatabaseTest, ARefusedWriteFailsAndTheConnectionStaysUsable) {
  ASSERT_EQ(raw_.exec("CREATE TRIGGER refuse BEFORE UPDATE ON world WHEN NEW.randomnumber = 4242 "
                      "BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END"),
            SQLITE_OK);
  // The first row is written before the second is refused: the rollback must undo it.
  const std::array<WorldRow, 2> rows = {{{10, 77}, {11, 4242}}};
  Recorder refused;
  database_->write_worlds(rows, refused);
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
  EXPECT_EQ(next.outcome, Outcome::kOk);
  EXPECT_EQ(stored_number(10), 78);
}

TEST_F(SqliteDatabaseTest, AFailedReadIsReportedAndTheNextReadWorks) {
  ASSERT_EQ(raw_.exec("ALTER TABLE fortune RENAME TO fortune_away"), SQLITE_OK);
  Recorder failed;
  database_->read_fortunes(failed);
  EXPECT_EQ(failed.done, 1);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_NE(failed.detail.find("fortune"), std::string::npos) << failed.detail;

  ASSERT_EQ(raw_.exec("ALTER TABLE fortune_away RENAME TO fortune"), SQLITE_OK);
  Recorder again;
  database_->read_fortunes(again);
  EXPECT_EQ(again.outcome, Outcome::kOk);
  EXPECT_EQ(again.fortunes.size(), kFortunes.size());
}

TEST_F(SqliteDatabaseTest, AFailedReadOfSeveralRowsLeavesNoTransactionOpen) {
  ASSERT_EQ(raw_.exec("ALTER TABLE world RENAME TO world_away"), SQLITE_OK);
  const std::array<std::int32_t, 3> ids = {1, 2, 3};
  Recorder failed;
  database_->read_worlds(ids, failed);
  EXPECT_EQ(failed.done, 1);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_NE(failed.detail.find("world"), std::string::npos) << failed.detail;
  ASSERT_EQ(raw_.exec("ALTER TABLE world_away RENAME TO world"), SQLITE_OK);

  // BEGIN IMMEDIATE would fail inside a transaction left open by the read.
  const std::array<WorldRow, 1> rows = {{{1, 99}}};
  Recorder write;
  database_->write_worlds(rows, write);
  EXPECT_EQ(write.outcome, Outcome::kOk) << write.detail;
  Recorder read;
  database_->read_worlds(ids, read);
  EXPECT_EQ(read.outcome, Outcome::kOk);
  EXPECT_EQ(read.worlds.size(), 3u);
  EXPECT_EQ(stored_number(1), 99);
}

// /updates starts its write from the reads' on_done, inside read_worlds.
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
  EXPECT_EQ(sink.outcomes, (std::vector<Outcome>{Outcome::kOk, Outcome::kOk}));
  EXPECT_EQ(stored_number(20), world_random_number(20) + 1);
  EXPECT_EQ(stored_number(21), world_random_number(21) + 1);
}

TEST_F(SqliteDatabaseTest, WritesStillWaitingEndWhenTheDatabaseCloses) {
  ASSERT_EQ(raw_.exec("BEGIN IMMEDIATE"), SQLITE_OK);
  const std::array<WorldRow, 1> rows = {{{12, 1}}};
  Recorder write;
  database_->write_worlds(rows, write);
  EXPECT_EQ(write.done, 0);
  database_.reset();
  EXPECT_EQ(write.done, 1);
  EXPECT_EQ(write.outcome, Outcome::kUnavailable);
}

// The WAL is checkpointed by the file's checkpointer thread, not inside a worker's commit.
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
    ASSERT_EQ(write.outcome, Outcome::kOk) << write.detail;
  }
  // The thread runs when the scheduler lets it: wait for it, with a generous bound.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (checkpointer->checkpoints() == before && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_GT(checkpointer->checkpoints(), before);
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
