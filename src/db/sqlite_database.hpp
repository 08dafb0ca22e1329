// The embedded backend: SQLite in one file, WAL mode. Each worker has two SQLite threads (a reader
// and a writer, each with its own connection and prepared statements) that run its operations, so
// its loop never waits on SQLite; answers come back on a later turn of the loop, and an operation
// unanswered after the timeout gets kTimeout (or kBusy for a write kept out by the write lock).
#pragma once

#include <memory>
#include <string>

#include "core/event_loop.hpp"
#include "db/database.hpp"

namespace ringside::db {

// Creates the schema and seeds it (db/schema.hpp's data) when the file is new or lacks the
// tables; switches it to WAL. Throws std::runtime_error with one line naming the file when it
// cannot be opened, read, written, or is not a database.
void prepare_sqlite(const std::string& path);

// Seeds (replaces) the three tables' rows, as `ringside db init --db sqlite:PATH` does.
void init_sqlite(const std::string& path);

std::unique_ptr<Database> open_sqlite_database(const std::string& path, double timeout_s,
                                               core::EventLoop& loop);

}  // namespace ringside::db
