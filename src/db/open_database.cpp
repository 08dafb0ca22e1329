#include "db/open_database.hpp"

#include "db/postgres_database.hpp"
#include "db/sqlite_database.hpp"

namespace ringside::db {

void prepare_database(const DatabaseSettings& settings) {
  if (settings.target.backend == Backend::kSqlite) prepare_sqlite(settings.target.location);
}

std::unique_ptr<Database> open_database(const DatabaseSettings& settings, core::EventLoop& loop) {
  if (settings.target.backend == Backend::kNone) return nullptr;
  if (settings.target.backend == Backend::kSqlite) {
    return open_sqlite_database(settings.target.location, settings.timeout_s, loop);
  }
  return open_postgres_database(settings.target.location, settings.pool, settings.timeout_s, loop);
}

}  // namespace ringside::db
