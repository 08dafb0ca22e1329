// SQLite's side of db/schema.hpp: the same three tables and rows, in one file, and the set-up work
// around them that runs before the server listens (never on a worker's loop): opening a file with
// errors that name it, checking it can be read and written, creating and seeding the tables.
//
//   sqlite::Handle db = sqlite::open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
//   sqlite::check_usable(db.get(), path);       // WAL mode, readable, writable, or throws
//   sqlite::seed(db.get(), path, sqlite::Seed::kMissingTables);
//
// Every failure throws std::runtime_error with one line naming the file and what to do about it.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>

namespace ringside::db::sqlite {

struct CloseConnection {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Handle = std::unique_ptr<sqlite3, CloseConnection>;
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

// Opens `path` with sqlite3_open_v2's `flags`; extended result codes on; no busy timeout.
Handle open_file(const std::string& path, int flags);

// Prepares one statement; SQLITE_PREPARE_PERSISTENT when it is kept for the connection's life.
Statement prepare(sqlite3* db, const char* sql, const std::string& path, bool persistent = false);

// Runs SQL without parameters or rows wanted; a failure names `doing` (or else the SQL).
void execute(sqlite3* db, const char* sql, const std::string& path, const char* doing = nullptr);

// Puts the file in WAL mode and checks it is a database this process may read and write (a real
// write: the schema version in the header).
void check_usable(sqlite3* db, const std::string& path);

enum class Seed {
  kMissingTables,  // create and seed only the tables that are not there (first use)
  kAllTables,      // replace every row of the three tables (`ringside db init`)
};

// In one write transaction. Waits up to a few seconds for another writer (start-up only).
void seed(sqlite3* db, const std::string& path, Seed which);

// One line for a failed call on `path`: what was being done, SQLite's words, and what to do.
[[noreturn]] void fail(sqlite3* db, int code, const std::string& path, const char* doing);

}  // namespace ringside::db::sqlite
