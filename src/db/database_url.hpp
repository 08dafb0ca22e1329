// Which database `--db` names, as `ringside serve` and `ringside db init` take it:
//   (nothing)            SQLite in ./ringside.db, the embedded default
//   sqlite:PATH          SQLite in PATH (sqlite:./a.db, sqlite:/tmp/x.db)
//   postgres://...       PostgreSQL, any libpq URL (postgresql:// too)
//   host=... dbname=...  PostgreSQL, a libpq key=value string
//   none                 no database: the database routes answer 503 (a hello-world server that
//                        creates no file)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ringside::db {

enum class Backend { kSqlite, kPostgres, kNone };

struct DatabaseTarget {
  Backend backend = Backend::kSqlite;
  std::string location;  // the SQLite file, or the libpq connection string
};

inline constexpr std::string_view kDefaultSqliteFile = "./ringside.db";

// Nothing, with `error` saying what is wrong, for text that names no database.
std::optional<DatabaseTarget> parse_database_url(std::string_view text, std::string& error);

// The target for messages: a PostgreSQL URL without its password.
std::string describe(const DatabaseTarget& target);

}  // namespace ringside::db
