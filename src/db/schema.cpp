#include "db/schema.hpp"

#include <ctime>
#include <stdexcept>
#include <string>

#include "db/connection.hpp"

namespace ringside::db {
namespace {

constexpr const char* kCreateTables =
    "CREATE TABLE IF NOT EXISTS users ("
    "  id integer PRIMARY KEY, name text NOT NULL, email text NOT NULL,"
    "  created_at timestamptz NOT NULL);"
    "CREATE TABLE IF NOT EXISTS world ("
    "  id integer PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS fortune ("
    "  id integer PRIMARY KEY, message varchar(2048) NOT NULL);";

// TRUNCATE rather than upserts: rows a run added or changed (World after /updates) go too.
constexpr const char* kEmptyTables = "TRUNCATE users, world, fortune";

constexpr std::uint64_t kWorldSeed = 0x72696e6773696465;  // "ringside"

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

// COPY's text format: a backslash, tab, newline or carriage return inside a value is escaped.
void append_copy_value(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
}

std::string utc_timestamp(std::int64_t seconds) {
  std::time_t time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  gmtime_r(&time, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S+00", &parts);
  return text;
}

std::string users_copy_data() {
  std::string data;
  data.reserve(kUserRows * 64);
  for (int id = 1; id <= kUserRows; ++id) {
    const std::string n = std::to_string(id);
    data += n + "\tUser " + n + "\tuser" + n + "@example.com\t" + utc_timestamp(kUsersEpoch + id) + "\n";
  }
  return data;
}

std::string world_copy_data() {
  std::string data;
  data.reserve(kWorldRows * 12);
  for (int id = 1; id <= kWorldRows; ++id) {
    data += std::to_string(id) + "\t" + std::to_string(world_random_number(id)) + "\n";
  }
  return data;
}

std::string fortune_copy_data() {
  std::string data;
  for (std::size_t i = 0; i < kFortunes.size(); ++i) {
    data += std::to_string(i + 1) + "\t";
    append_copy_value(data, kFortunes[i]);
    data += "\n";
  }
  return data;
}

// COPY ... FROM STDIN: the rows travel as data, never as SQL text.
void copy_rows(PGconn* connection, const char* copy_sql, const std::string& data) {
  execute(connection, copy_sql, PGRES_COPY_IN);
  if (PQputCopyData(connection, data.data(), static_cast<int>(data.size())) != 1 ||
      PQputCopyEnd(connection, nullptr) != 1) {
    throw std::runtime_error(std::string("PostgreSQL refused `") + copy_sql +
                             "` data: " + first_line(PQerrorMessage(connection)));
  }
  Result result(PQgetResult(connection));
  if (!result || PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    throw std::runtime_error(std::string("PostgreSQL refused `") + copy_sql +
                             "`: " + first_line(PQerrorMessage(connection)));
  }
  while (Result rest{PQgetResult(connection)}) {
  }
}

void seed(PGconn* connection) {
  execute(connection, kCreateTables);
  execute(connection, kEmptyTables);
  copy_rows(connection, "COPY users (id, name, email, created_at) FROM STDIN", users_copy_data());
  copy_rows(connection, "COPY world (id, randomnumber) FROM STDIN", world_copy_data());
  copy_rows(connection, "COPY fortune (id, message) FROM STDIN", fortune_copy_data());
  execute(connection, "ANALYZE users, world, fortune");
}

// Optional: tests count queries with it, but a database without the module, or a user who may
// not create extensions, still serves every route.
bool enable_stat_statements(PGconn* connection) {
  Result available(PQexec(connection,
                          "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements'"));
  if (!available || PQresultStatus(available.get()) != PGRES_TUPLES_OK ||
      PQntuples(available.get()) == 0) {
    return false;
  }
  Result created(PQexec(connection, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"));
  return created && PQresultStatus(created.get()) == PGRES_COMMAND_OK;
}

}  // namespace

int world_random_number(int id) {
  return 1 + static_cast<int>(splitmix64(kWorldSeed + static_cast<std::uint64_t>(id)) %
                              kMaxRandomNumber);
}

InitResult init_schema(PGconn* connection) {
  execute(connection, "BEGIN");
  try {
    seed(connection);
  } catch (...) {
    Result rollback(PQexec(connection, "ROLLBACK"));
    throw;
  }
  execute(connection, "COMMIT");
  return InitResult{enable_stat_statements(connection)};
}

}  // namespace ringside::db
