#include "db/sqlite_database.hpp"

#include <algorithm>
#include <cstring>
#include <deque>

#include "db/sqlite_checkpointer.hpp"
#include "db/sqlite_schema.hpp"

namespace ringside::db {
namespace {

using core::Duration;
using core::TimePoint;
using namespace std::chrono_literals;

// A writer that finds the write lock taken tries again on a later loop turn, after 1 ms, then
// 2 ms, then every 4 ms: soon enough that a lock held for a statement or two costs little, seldom
// enough that a long holder (`ringside db init`, a backup) does not spin the loop.
constexpr Duration kFirstRetry = 1ms;
constexpr Duration kMaxRetry = 4ms;

constexpr const char* kSelectUser = "SELECT id, name, email, created_at FROM users WHERE id = ?1";
constexpr const char* kSelectWorld = "SELECT id, randomnumber FROM world WHERE id = ?1";
constexpr const char* kSelectFortunes = "SELECT id, message FROM fortune";
constexpr const char* kUpdateWorld = "UPDATE world SET randomnumber = ?1 WHERE id = ?2";

std::string_view text_column(sqlite3_stmt* statement, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
  if (text == nullptr) return {};
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column))};
}

bool is_busy(int code) {
  return (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED;
}

// What a failed statement means for its request. A taken lock, or a file that cannot be written
// now (made read-only or immutable, the disk full, an I/O error), is the database being
// unavailable: the client may try again later (503). Anything else is an error of the database
// itself, a missing table say (500).
Outcome failure_outcome(int code) {
  if (is_busy(code)) return Outcome::kBusy;
  switch (code & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      return Outcome::kUnavailable;
    default:
      return Outcome::kFailed;
  }
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const std::string& path, double timeout_s, core::EventLoop& loop);
  ~SqliteDatabase() override;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  void find_user(std::int64_t id, Sink& sink) override;
  void read_worlds(std::span<const std::int32_t> ids, Sink& sink) override;
  void read_fortunes(Sink& sink) override;
  void write_worlds(std::span<const WorldRow> rows, Sink& sink) override;

  [[nodiscard]] TimePoint next_deadline() const override;
  void on_timer(TimePoint now) override;

 private:
  // A write that found the lock taken, waiting for a later turn. The rows stay valid until its
  // on_done (Database's contract), so only the span is kept.
  struct WaitingWrite {
    std::span<const WorldRow> rows;
    Sink* sink = nullptr;
    TimePoint give_up_at;
    WaitingWrite* next = nullptr;
  };
  enum class Attempt : std::uint8_t { kDone, kLockTaken, kFailed };

  [[nodiscard]] Attempt try_write(std::span<const WorldRow> rows);
  [[nodiscard]] int step(sqlite3_stmt* statement);
  [[nodiscard]] int run(sqlite3_stmt* statement);
  void finish_read(sqlite3_stmt* statement, int code, Sink& sink);
  void keep_error(int code);
  void roll_back();
  void wait(std::span<const WorldRow> rows, Sink& sink);
  [[nodiscard]] WaitingWrite* pop_waiting();

  Duration timeout_;
  core::EventLoop& loop_;
  std::shared_ptr<sqlite::Checkpointer> checkpointer_;  // outlives db_, whose hook points to it
  sqlite::Handle db_;
  sqlite::Statement select_user_;
  sqlite::Statement select_world_;
  sqlite::Statement select_fortunes_;
  sqlite::Statement update_world_;
  sqlite::Statement begin_;
  sqlite::Statement begin_read_;
  sqlite::Statement commit_;
  sqlite::Statement rollback_;

  // Writes waiting for the lock, first asked first tried. Their nodes are reused: the deque only
  // grows to the most writes that ever waited at once.
  std::deque<WaitingWrite> write_nodes_;
  WaitingWrite* free_nodes_ = nullptr;
  WaitingWrite* first_waiting_ = nullptr;
  WaitingWrite* last_waiting_ = nullptr;
  TimePoint retry_at_ = TimePoint::max();
  Duration retry_after_ = kFirstRetry;

  char error_[256] = {};  // SQLite's message for the last failure, handed to on_done
  std::size_t error_len_ = 0;
  int error_code_ = SQLITE_OK;  // and its (extended) code
};

SqliteDatabase::SqliteDatabase(const std::string& path, double timeout_s, core::EventLoop& loop)
    : timeout_(core::seconds_to_duration(timeout_s)),
      loop_(loop),
      checkpointer_(sqlite::Checkpointer::for_file(path)),
      // No SQLITE_OPEN_CREATE: prepare_sqlite made the file. NOMUTEX: only this worker's thread
      // uses the connection, so SQLite's per-call mutex is pure cost.
      db_(sqlite::open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)) {
  // The file is in WAL mode already (prepare_sqlite); synchronous is per connection. NORMAL in
  // WAL mode syncs at checkpoints, not at each commit: a power cut may lose the last commits,
  // never the file. No busy timeout: it would sleep in the worker's thread.
  sqlite::execute(db_.get(), "PRAGMA synchronous = NORMAL", path);
  sqlite3_busy_timeout(db_.get(), 0);
  checkpointer_->attach(db_.get());
  select_user_ = sqlite::prepare(db_.get(), kSelectUser, path, true);
  select_world_ = sqlite::prepare(db_.get(), kSelectWorld, path, true);
  select_fortunes_ = sqlite::prepare(db_.get(), kSelectFortunes, path, true);
  update_world_ = sqlite::prepare(db_.get(), kUpdateWorld, path, true);
  // IMMEDIATE takes the write lock at BEGIN, so a taken lock shows there and nowhere later: a
  // write never has to be undone halfway because another connection got in first.
  begin_ = sqlite::prepare(db_.get(), "BEGIN IMMEDIATE", path, true);
  begin_read_ = sqlite::prepare(db_.get(), "BEGIN", path, true);
  commit_ = sqlite::prepare(db_.get(), "COMMIT", path, true);
  rollback_ = sqlite::prepare(db_.get(), "ROLLBACK", path, true);
}

SqliteDatabase::~SqliteDatabase() {
  // Every operation ends with an on_done, even those still waiting for the lock at shutdown.
  while (WaitingWrite* write = pop_waiting()) {
    write->sink->on_done(Outcome::kUnavailable, "the server is stopping");
  }
}

// sqlite3_step, keeping SQLite's message when it fails (before a reset or rollback replaces it).
int SqliteDatabase::step(sqlite3_stmt* statement) {
  const int code = sqlite3_step(statement);
  if (code != SQLITE_ROW && code != SQLITE_DONE) keep_error(code);
  return code;
}

// A statement run to its first row or its end, then reset.
int SqliteDatabase::run(sqlite3_stmt* statement) {
  const int code = step(statement);
  sqlite3_reset(statement);
  return code;
}

void SqliteDatabase::keep_error(int code) {
  error_code_ = code;
  const char* message = sqlite3_errmsg(db_.get());
  if (message == nullptr) message = sqlite3_errstr(code);
  error_len_ = std::min(std::strlen(message), sizeof error_);
  std::memcpy(error_, message, error_len_);
}

// A read's statement is reset before on_done: the sink may start the next operation from there
// (/updates writes from its reads' on_done). A failure's message was kept by step().
void SqliteDatabase::finish_read(sqlite3_stmt* statement, int code, Sink& sink) {
  if (code == SQLITE_ROW || code == SQLITE_DONE) {
    sqlite3_reset(statement);
    sink.on_done(Outcome::kOk, {});
    return;
  }
  sqlite3_reset(statement);
  roll_back();
  // A reader is kept out only in rare moments in WAL mode (another connection recovering the
  // WAL): the client may simply try again.
  sink.on_done(failure_outcome(code), {error_, error_len_});
}

void SqliteDatabase::roll_back() {
  if (sqlite3_get_autocommit(db_.get()) == 0) {
    sqlite3_step(rollback_.get());
    sqlite3_reset(rollback_.get());
  }
}

void SqliteDatabase::find_user(std::int64_t id, Sink& sink) {
  sqlite3_stmt* statement = select_user_.get();
  sqlite3_bind_int64(statement, 1, id);
  const int code = step(statement);
  if (code == SQLITE_ROW) {
    sink.on_user(UserRow{sqlite3_column_int64(statement, 0), text_column(statement, 1),
                         text_column(statement, 2), text_column(statement, 3)});
  }
  finish_read(statement, code, sink);
}

// Several rows in one read transaction: still one SELECT per row (TechEmpower's rule), but the
// WAL read lock is taken once instead of per statement, about 5x cheaper for 20 rows
// (bench/micro/sqlite_bench.cpp). The transaction ends before on_done, so a write can follow.
void SqliteDatabase::read_worlds(std::span<const std::int32_t> ids, Sink& sink) {
  sqlite3_stmt* statement = select_world_.get();
  const bool transaction = ids.size() > 1;
  int code = transaction ? run(begin_read_.get()) : SQLITE_DONE;
  for (std::size_t i = 0; i < ids.size() && code == SQLITE_DONE; ++i) {
    sqlite3_bind_int(statement, 1, ids[i]);
    code = step(statement);
    if (code == SQLITE_ROW) {
      sink.on_world(i, WorldRow{sqlite3_column_int(statement, 0), sqlite3_column_int(statement, 1)});
      code = SQLITE_DONE;
    }
    if (code == SQLITE_DONE) sqlite3_reset(statement);
  }
  if (transaction && code == SQLITE_DONE) code = run(commit_.get());
  finish_read(statement, code, sink);
}

void SqliteDatabase::read_fortunes(Sink& sink) {
  sqlite3_stmt* statement = select_fortunes_.get();
  int code;
  while ((code = step(statement)) == SQLITE_ROW) {
    sink.on_fortune(FortuneRow{sqlite3_column_int(statement, 0), text_column(statement, 1)});
  }
  finish_read(statement, code, sink);
}

// One transaction: BEGIN IMMEDIATE, one prepared UPDATE per row, COMMIT (bench/micro/
// sqlite_bench.cpp measures it against one statement over a JSON array of the rows).
SqliteDatabase::Attempt SqliteDatabase::try_write(std::span<const WorldRow> rows) {
  int code = run(begin_.get());
  if (is_busy(code)) return Attempt::kLockTaken;
  if (code != SQLITE_DONE) return Attempt::kFailed;
  sqlite3_stmt* update = update_world_.get();
  for (const WorldRow& row : rows) {
    sqlite3_bind_int(update, 1, row.random_number);
    sqlite3_bind_int(update, 2, row.id);
    code = run(update);
    if (code != SQLITE_DONE) break;
  }
  if (code == SQLITE_DONE) code = run(commit_.get());
  if (code == SQLITE_DONE) return Attempt::kDone;
  roll_back();
  // Not expected once IMMEDIATE holds the lock, but harmless: the rows are written again.
  return is_busy(code) ? Attempt::kLockTaken : Attempt::kFailed;
}

void SqliteDatabase::write_worlds(std::span<const WorldRow> rows, Sink& sink) {
  // Behind writes already waiting: they were asked first.
  if (first_waiting_ != nullptr) {
    wait(rows, sink);
    return;
  }
  switch (try_write(rows)) {
    case Attempt::kDone:
      sink.on_done(Outcome::kOk, {});
      return;
    case Attempt::kFailed:
      sink.on_done(failure_outcome(error_code_), {error_, error_len_});
      return;
    case Attempt::kLockTaken:
      retry_after_ = kFirstRetry;
      retry_at_ = loop_.now() + retry_after_;
      wait(rows, sink);
      return;
  }
}

void SqliteDatabase::wait(std::span<const WorldRow> rows, Sink& sink) {
  WaitingWrite* write = free_nodes_;
  if (write != nullptr) {
    free_nodes_ = write->next;
  } else {
    write = &write_nodes_.emplace_back();
  }
  *write = WaitingWrite{rows, &sink, loop_.now() + timeout_, nullptr};
  if (last_waiting_ != nullptr) {
    last_waiting_->next = write;
  } else {
    first_waiting_ = write;
  }
  last_waiting_ = write;
}

// Unlinks the first waiting write and gives its node back; the node stays readable until the next
// wait(), which only an on_done can cause, after the caller has read it.
SqliteDatabase::WaitingWrite* SqliteDatabase::pop_waiting() {
  WaitingWrite* write = first_waiting_;
  if (write == nullptr) return nullptr;
  first_waiting_ = write->next;
  if (first_waiting_ == nullptr) last_waiting_ = nullptr;
  write->next = free_nodes_;
  free_nodes_ = write;
  return write;
}

TimePoint SqliteDatabase::next_deadline() const {
  if (first_waiting_ == nullptr) return TimePoint::max();
  // The first write waiting gives up first: every write waits the same timeout, in order.
  return std::min(retry_at_, first_waiting_->give_up_at);
}

void SqliteDatabase::on_timer(TimePoint now) {
  if (first_waiting_ == nullptr || now < next_deadline()) return;
  while (first_waiting_ != nullptr) {
    const Attempt attempt = try_write(first_waiting_->rows);
    if (attempt == Attempt::kLockTaken) break;
    Sink& sink = *pop_waiting()->sink;
    if (attempt == Attempt::kDone) {
      sink.on_done(Outcome::kOk, {});
    } else {
      sink.on_done(failure_outcome(error_code_), {error_, error_len_});
    }
  }
  // Still taken: those that waited their whole timeout give up; the rest try again a bit later.
  while (first_waiting_ != nullptr && first_waiting_->give_up_at <= now) {
    pop_waiting()->sink->on_done(Outcome::kBusy,
                                 "SQLite's write lock stayed taken for the whole --db-timeout");
  }
  if (first_waiting_ != nullptr) {
    retry_after_ = std::min(retry_after_ * 2, kMaxRetry);
    retry_at_ = now + retry_after_;
  }
}

}  // namespace

std::unique_ptr<Database> open_sqlite_database(const std::string& path, double timeout_s,
                                               core::EventLoop& loop) {
  return std::make_unique<SqliteDatabase>(path, timeout_s, loop);
}

}  // namespace ringside::db
