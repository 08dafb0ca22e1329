// Opening the application database for the server: once before the workers start (SQLite's
// file is created, seeded and checked there), then one Database per worker.
//
//   DatabaseSettings settings{*parse_database_url(flag, error)};
//   prepare_database(settings);                                  // throws: one line, exit 2
//   auto database = open_database(settings, worker_loop);        // per worker
#pragma once

#include <memory>

#include "core/event_loop.hpp"
#include "db/database.hpp"
#include "db/database_url.hpp"

namespace ringside::db {

struct DatabaseSettings {
  DatabaseTarget target;
  unsigned pool = 2;       // PostgreSQL connections per worker
  double timeout_s = 5;    // a query unanswered this long fails with kTimeout (503)
};

inline constexpr unsigned kMaxPool = 64;
inline constexpr double kMinDbTimeoutS = 0.01;
inline constexpr double kMaxDbTimeoutS = 600;

// SQLite: opens the file (creating and seeding it when new, or when it has none of the tables),
// checks it can be read and written; throws std::runtime_error with one line naming the file.
// PostgreSQL: nothing; the server starts even when the database is down, and reconnects.
void prepare_database(const DatabaseSettings& settings);

// One worker's database, driven by that worker's loop; nullptr for Backend::kNone. Throws
// std::runtime_error (SQLite) when the file cannot be opened.
std::unique_ptr<Database> open_database(const DatabaseSettings& settings, core::EventLoop& loop);

}  // namespace ringside::db
