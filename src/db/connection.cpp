#include "db/connection.hpp"

#include <stdexcept>

namespace ringside::db {

std::string first_line(std::string_view message) {
  auto end = message.find('\n');
  return std::string(message.substr(0, end));
}

Connection connect(const std::string& url, int connect_timeout_s) {
  const std::string timeout = std::to_string(connect_timeout_s);
  // expand_dbname = 1: the "dbname" value is parsed as a full URL or conninfo string.
  const char* keywords[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {url.c_str(), timeout.c_str(), "ringside", nullptr};
  Connection connection(PQconnectdbParams(keywords, values, 1));
  if (!connection) throw std::runtime_error("out of memory connecting to PostgreSQL");
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to PostgreSQL at " +
                             std::string(PQhost(connection.get()) ? PQhost(connection.get()) : "?") +
                             " port " + (PQport(connection.get()) ? PQport(connection.get()) : "?") +
                             ": " + first_line(PQerrorMessage(connection.get())));
  }
  // NOTICEs ("relation already exists, skipping") are expected in idempotent set-up: not news.
  PQsetNoticeProcessor(connection.get(), [](void*, const char*) {}, nullptr);
  return connection;
}

Result execute(PGconn* connection, const char* sql, ExecStatusType expected) {
  Result result(PQexec(connection, sql));
  if (!result || PQresultStatus(result.get()) != expected) {
    throw std::runtime_error(std::string("PostgreSQL refused `") + first_line(sql) +
                             "`: " + first_line(PQerrorMessage(connection)));
  }
  return result;
}

}  // namespace ringside::db
