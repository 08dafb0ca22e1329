#include "db/sqlite_connection.hpp"

#include <algorithm>
#include <cstring>

#include "db/sqlite_checkpointer.hpp"

namespace ringside::db::sqlite {
namespace {

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

}  // namespace

// A taken lock, or a file that cannot be written now (made read-only or immutable, the disk full,
// an I/O error), is the database being unavailable: the client may try again later (503).
// Anything else is an error of the database itself, a missing table say (500).
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

SqliteConnection::SqliteConnection(const std::string& path)
    : checkpointer_(Checkpointer::for_file(path)),
      // No SQLITE_OPEN_CREATE: prepare_sqlite made the file. NOMUTEX: one thread at a time uses
      // the connection (its SQLite thread), so SQLite's per-call mutex is pure cost.
      db_(open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)) {
  // The file is in WAL mode already (prepare_sqlite); synchronous is per connection. NORMAL in
  // WAL mode syncs at checkpoints, not at each commit: a power cut may lose the last commits,
  // never the file. No busy timeout: a write that finds the lock taken is retried by its thread
  // on its own schedule, which also watches for the request's timeout.
  execute(db_.get(), "PRAGMA synchronous = NORMAL", path);
  // When a commit starts the WAL over, a WAL file grown past this (a burst of writes) is cut back
  // to it: its space goes back to the disk.
  execute(db_.get(), "PRAGMA journal_size_limit = 33554432", path);
  sqlite3_busy_timeout(db_.get(), 0);
  checkpointer_->attach(db_.get());
  select_user_ = prepare(db_.get(), kSelectUser, path, true);
  select_world_ = prepare(db_.get(), kSelectWorld, path, true);
  select_fortunes_ = prepare(db_.get(), kSelectFortunes, path, true);
  update_world_ = prepare(db_.get(), kUpdateWorld, path, true);
  // IMMEDIATE takes the write lock at BEGIN, so a taken lock shows there and nowhere later: a
  // write never has to be undone halfway because another connection got in first.
  begin_ = prepare(db_.get(), "BEGIN IMMEDIATE", path, true);
  begin_read_ = prepare(db_.get(), "BEGIN", path, true);
  commit_ = prepare(db_.get(), "COMMIT", path, true);
  rollback_ = prepare(db_.get(), "ROLLBACK", path, true);
}

SqliteConnection::~SqliteConnection() = default;

// sqlite3_step, keeping SQLite's message when it fails (before a reset or rollback replaces it).
int SqliteConnection::step(sqlite3_stmt* statement) {
  const int code = sqlite3_step(statement);
  if (code != SQLITE_ROW && code != SQLITE_DONE) keep_error(code);
  return code;
}

// A statement run to its first row or its end, then reset.
int SqliteConnection::run(sqlite3_stmt* statement) {
  const int code = step(statement);
  sqlite3_reset(statement);
  return code;
}

void SqliteConnection::keep_error(int code) {
  // A full disk stays full while the WAL only grows: have it started over, so that the next
  // writes reuse its space (and journal_size_limit gives the rest back).
  if ((code & 0xff) == SQLITE_FULL) checkpointer_->request_restart();
  error_code_ = code;
  const char* message = sqlite3_errmsg(db_.get());
  if (message == nullptr) message = sqlite3_errstr(code);
  error_len_ = std::min(std::strlen(message), sizeof error_);
  std::memcpy(error_, message, error_len_);
}

// A read's statement is reset and its transaction ended before on_done. A failure's message was
// kept by step().
void SqliteConnection::finish_read(sqlite3_stmt* statement, int code, Sink& sink) {
  if (code == SQLITE_ROW || code == SQLITE_DONE) {
    sqlite3_reset(statement);
    sink.on_done(Outcome::kOk, {});
    return;
  }
  sqlite3_reset(statement);
  roll_back();
  // A reader is kept out only in rare moments in WAL mode (another connection recovering the
  // WAL): the client may simply try again.
  sink.on_done(failure_outcome(code), error());
}

void SqliteConnection::roll_back() {
  if (sqlite3_get_autocommit(db_.get()) == 0) {
    sqlite3_step(rollback_.get());
    sqlite3_reset(rollback_.get());
  }
}

void SqliteConnection::find_user(std::int64_t id, Sink& sink) {
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
// (bench/micro/sqlite_bench.cpp).
void SqliteConnection::read_worlds(std::span<const std::int32_t> ids, Sink& sink) {
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

void SqliteConnection::read_fortunes(Sink& sink) {
  sqlite3_stmt* statement = select_fortunes_.get();
  int code;
  while ((code = step(statement)) == SQLITE_ROW) {
    sink.on_fortune(FortuneRow{sqlite3_column_int(statement, 0), text_column(statement, 1)});
  }
  finish_read(statement, code, sink);
}

// One transaction: BEGIN IMMEDIATE, one prepared UPDATE per row, COMMIT (bench/micro/
// sqlite_bench.cpp measures it against one statement over a JSON array of the rows).
WriteAttempt SqliteConnection::try_write(std::span<const WorldRow> rows) {
  // In turn with the process's other writers of the file and its checkpoints (see
  // sqlite_checkpointer.hpp): a checkpoint then catches up, and the next commit starts the WAL over.
  std::lock_guard turn(checkpointer_->writers());
  int code = run(begin_.get());
  if (is_busy(code)) return WriteAttempt::kLockTaken;
  if (code != SQLITE_DONE) return WriteAttempt::kFailed;
  sqlite3_stmt* update = update_world_.get();
  for (const WorldRow& row : rows) {
    sqlite3_bind_int(update, 1, row.random_number);
    sqlite3_bind_int(update, 2, row.id);
    code = run(update);
    if (code != SQLITE_DONE) break;
  }
  if (code == SQLITE_DONE) code = run(commit_.get());
  if (code == SQLITE_DONE) return WriteAttempt::kDone;
  roll_back();
  // Not expected once IMMEDIATE holds the lock, but harmless: the rows are written again.
  return is_busy(code) ? WriteAttempt::kLockTaken : WriteAttempt::kFailed;
}

}  // namespace ringside::db::sqlite
