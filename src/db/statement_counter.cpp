#include "db/statement_counter.hpp"

#include <cstdlib>
#include <stdexcept>

namespace ringside::db {
namespace {

// The counter's own statements all mention the view; everything else in this database counts.
constexpr const char* kCallsQuery =
    "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements "
    "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND query NOT LIKE '%pg_stat_statements%'";

}  // namespace

StatementCounter::StatementCounter(const std::string& url) {
  try {
    connection_ = connect(url, 5);
  } catch (const std::exception& error) {
    problem_ = error.what();
  }
}

std::optional<std::uint64_t> StatementCounter::calls() {
  if (!connection_) return std::nullopt;
  if (PQstatus(connection_.get()) != CONNECTION_OK) PQreset(connection_.get());
  Result result(PQexec(connection_.get(), kCallsQuery));
  if (!result || PQresultStatus(result.get()) != PGRES_TUPLES_OK || PQntuples(result.get()) != 1) {
    problem_ = "pg_stat_statements cannot be read (" +
               first_line(PQerrorMessage(connection_.get())) +
               "); load the module (shared_preload_libraries) and CREATE EXTENSION pg_stat_statements";
    return std::nullopt;
  }
  return std::strtoull(PQgetvalue(result.get(), 0, 0), nullptr, 10);
}

}  // namespace ringside::db
