// One SQLite connection with the database routes' statements prepared once, and the four
// operations run to their end before each call returns. It blocks: it runs on a SQLite thread of
// its own (db/sqlite_thread.hpp), never on a worker's event loop, because a call can wait on the
// disk (a stalled device, the journal, dirty-page throttling) or sleep inside SQLite (a reader
// retrying while another connection rewrites the WAL index) for seconds.
//
//   SqliteConnection connection(path);       // throws one line naming the file
//   connection.find_user(42, sink);          // rows, then on_done, before it returns
//   switch (connection.try_write(rows)) { case WriteAttempt::kLockTaken: ...try again later }
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "db/database.hpp"
#include "db/sqlite_schema.hpp"

namespace ringside::db::sqlite {

class Checkpointer;

enum class WriteAttempt : std::uint8_t { kDone, kLockTaken, kFailed };

// What a failed statement means for its request: kBusy for a taken lock, kUnavailable for a file
// that cannot be written now (read-only, immutable, disk full, I/O error), else kFailed.
Outcome failure_outcome(int code);

class SqliteConnection {
 public:
  // Opens `path` (made by prepare_sqlite) read-write with no busy timeout, and hands its WAL
  // checkpoints to the file's checkpointer thread.
  explicit SqliteConnection(const std::string& path);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Database's reads, answered through `sink` before they return.
  void find_user(std::int64_t id, Sink& sink);
  void read_worlds(std::span<const std::int32_t> ids, Sink& sink);
  void read_fortunes(Sink& sink);

  // One transaction (BEGIN IMMEDIATE, an UPDATE per row, COMMIT), or nothing written. kLockTaken
  // when another connection holds the write lock: try again later. After kFailed, error() and
  // error_code() say why.
  [[nodiscard]] WriteAttempt try_write(std::span<const WorldRow> rows);

  [[nodiscard]] std::string_view error() const { return {error_, error_len_}; }
  [[nodiscard]] int error_code() const { return error_code_; }

 private:
  [[nodiscard]] int step(sqlite3_stmt* statement);
  [[nodiscard]] int run(sqlite3_stmt* statement);
  void finish_read(sqlite3_stmt* statement, int code, Sink& sink);
  void keep_error(int code);
  void roll_back();

  std::shared_ptr<Checkpointer> checkpointer_;  // outlives db_, whose hook points to it
  Handle db_;
  Statement select_user_;
  Statement select_world_;
  Statement select_fortunes_;
  Statement update_world_;
  Statement begin_;
  Statement begin_read_;
  Statement commit_;
  Statement rollback_;

  char error_[256] = {};  // SQLite's message for the last failure
  std::size_t error_len_ = 0;
  int error_code_ = SQLITE_OK;  // and its (extended) code
};

}  // namespace ringside::db::sqlite
