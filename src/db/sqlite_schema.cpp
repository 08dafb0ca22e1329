#include "db/sqlite_schema.hpp"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "db/schema.hpp"

namespace ringside::db {
namespace sqlite {
namespace {

// The same tables as db/schema.cpp's, in SQLite's types. INTEGER PRIMARY KEY makes the id the
// rowid, so a lookup by id is one b-tree search. created_at is RFC 3339 text in UTC, as the
// routes print it.
constexpr const char* kCreateTable[] = {
    "CREATE TABLE IF NOT EXISTS users ("
    "  id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,"
    "  created_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS world ("
    "  id INTEGER PRIMARY KEY, randomnumber INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS fortune ("
    "  id INTEGER PRIMARY KEY, message TEXT NOT NULL)",
};
constexpr const char* kTableName[] = {"users", "world", "fortune"};
constexpr const char* kEmptyTable[] = {"DELETE FROM users", "DELETE FROM world",
                                       "DELETE FROM fortune"};

// Bumped when the tables change shape; writing it is also prepare's proof that the file and its
// WAL can be written.
constexpr int kSchemaVersion = 1;

// Another process seeding or writing the same file at start-up: wait for it, a little.
constexpr int kSetupBusyMs = 10'000;

std::string advice(int code, const std::string& path) {
  const std::string pick = "or pick another file with --db sqlite:PATH";
  switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return "it is not a usable SQLite database: move it away (ringside creates a new one), " + pick;
    case SQLITE_READONLY:
      return "give this user write permission on it and on its directory (SQLite writes " + path +
             "-wal and -shm beside it), " + pick;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "another process holds its lock: try again when it is done, " + pick;
    case SQLITE_FULL:
      return "free some disk space, " + pick;
    default:
      return "check that its directory exists and that this user may read and write the file and "
             "the directory (SQLite creates " + path + "-wal and -shm beside it), " + pick;
  }
}

void step_done(sqlite3* db, sqlite3_stmt* statement, const std::string& path, const char* doing) {
  const int code = sqlite3_step(statement);
  if (code != SQLITE_DONE && code != SQLITE_ROW) fail(db, code, path, doing);
  sqlite3_reset(statement);
}

void bind_text(sqlite3_stmt* statement, int index, std::string_view text) {
  sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void seed_users(sqlite3* db, const std::string& path) {
  Statement insert = prepare(
      db, "INSERT INTO users (id, name, email, created_at) VALUES (?1, ?2, ?3, ?4)", path);
  char name[32];
  char email[48];
  char created_at[32];
  for (int id = 1; id <= kUserRows; ++id) {
    const auto seconds = static_cast<std::time_t>(kUsersEpoch + id);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    std::strftime(created_at, sizeof created_at, "%Y-%m-%dT%H:%M:%SZ", &parts);
    std::snprintf(name, sizeof name, "User %d", id);
    std::snprintf(email, sizeof email, "user%d@example.com", id);
    sqlite3_bind_int(insert.get(), 1, id);
    bind_text(insert.get(), 2, name);
    bind_text(insert.get(), 3, email);
    bind_text(insert.get(), 4, created_at);
    step_done(db, insert.get(), path, "seeding users");
  }
}

void seed_world(sqlite3* db, const std::string& path) {
  Statement insert = prepare(db, "INSERT INTO world (id, randomnumber) VALUES (?1, ?2)", path);
  for (int id = 1; id <= kWorldRows; ++id) {
    sqlite3_bind_int(insert.get(), 1, id);
    sqlite3_bind_int(insert.get(), 2, world_random_number(id));
    step_done(db, insert.get(), path, "seeding world");
  }
}

void seed_fortune(sqlite3* db, const std::string& path) {
  Statement insert = prepare(db, "INSERT INTO fortune (id, message) VALUES (?1, ?2)", path);
  for (std::size_t i = 0; i < kFortunes.size(); ++i) {
    sqlite3_bind_int(insert.get(), 1, static_cast<int>(i + 1));
    bind_text(insert.get(), 2, kFortunes[i]);
    step_done(db, insert.get(), path, "seeding fortune");
  }
}

bool has_table(sqlite3* db, const std::string& path, const char* name) {
  Statement query =
      prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", path);
  bind_text(query.get(), 1, name);
  const int code = sqlite3_step(query.get());
  if (code != SQLITE_ROW && code != SQLITE_DONE) fail(db, code, path, "reading the schema");
  return code == SQLITE_ROW;
}

}  // namespace

void fail(sqlite3* db, int code, const std::string& path, const char* doing) {
  // sqlite3_errmsg describes the last call on `db`, which is not always the one that failed.
  const char* message = db != nullptr && sqlite3_errcode(db) == code ? sqlite3_errmsg(db)
                                                                      : sqlite3_errstr(code);
  throw std::runtime_error("SQLite file " + path + ": " + doing + " failed (" + message + "): " +
                           advice(code, path));
}

Handle open_file(const std::string& path, int flags) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw std::runtime_error("SQLite file " + path +
                             " is a directory: name a file in it, as in --db sqlite:" + path +
                             (path.ends_with('/') ? "" : "/") + "ringside.db");
  }
  sqlite3* raw = nullptr;
  const int code = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Handle db(raw);  // closed on every path, even when the open failed
  if (code != SQLITE_OK) fail(db.get(), code, path, "opening");
  sqlite3_extended_result_codes(db.get(), 1);
  return db;
}

Statement prepare(sqlite3* db, const char* sql, const std::string& path, bool persistent) {
  sqlite3_stmt* raw = nullptr;
  const int code =
      sqlite3_prepare_v3(db, sql, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0, &raw, nullptr);
  Statement statement(raw);
  if (code != SQLITE_OK) fail(db, code, path, "preparing a statement");
  return statement;
}

void execute(sqlite3* db, const char* sql, const std::string& path, const char* doing) {
  const int code = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) fail(db, code, path, doing != nullptr ? doing : sql);
}

void check_usable(sqlite3* db, const std::string& path) {
  sqlite3_busy_timeout(db, kSetupBusyMs);
  // Reading the schema reads the file's first page: a file that is not a database fails here.
  execute(db, "SELECT count(*) FROM sqlite_schema", path, "reading");
  // SQLite opens a file it may only read in read-only mode, silently.
  if (sqlite3_db_readonly(db, "main") == 1) fail(nullptr, SQLITE_READONLY, path, "opening for writing");
  Statement wal = prepare(db, "PRAGMA journal_mode = WAL", path);
  const int code = sqlite3_step(wal.get());
  if (code != SQLITE_ROW) fail(db, code, path, "switching to WAL mode");
  const auto* mode = reinterpret_cast<const char*>(sqlite3_column_text(wal.get(), 0));
  if (mode == nullptr || std::string_view(mode) != "wal") {
    throw std::runtime_error("SQLite file " + path + ": stays in journal mode '" +
                             (mode ? mode : "?") + "', not WAL: " + advice(SQLITE_CANTOPEN, path));
  }
  wal.reset();
  // A real write, through the WAL beside the file: the directory must let SQLite create it.
  execute(db, "BEGIN IMMEDIATE", path, "writing");
  try {
    execute(db, ("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str(), path,
            "writing");
    execute(db, "COMMIT", path, "writing");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void seed(sqlite3* db, const std::string& path, Seed which) {
  sqlite3_busy_timeout(db, kSetupBusyMs);
  using SeedTable = void (*)(sqlite3*, const std::string&);
  constexpr SeedTable kSeedTable[] = {seed_users, seed_world, seed_fortune};
  // IMMEDIATE: two servers starting on a new file at once seed it once, one after the other.
  execute(db, "BEGIN IMMEDIATE", path, "seeding");
  try {
    for (std::size_t table = 0; table < std::size(kTableName); ++table) {
      if (which == Seed::kMissingTables && has_table(db, path, kTableName[table])) continue;
      execute(db, kCreateTable[table], path, "creating the tables");
      execute(db, kEmptyTable[table], path, "seeding");
      kSeedTable[table](db, path);
    }
    execute(db, "COMMIT", path, "seeding");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace sqlite
}  // namespace ringside::db
