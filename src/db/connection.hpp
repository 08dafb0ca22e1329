// Blocking libpq helpers for set-up work (seeding, creating databases): an owning handle and
// checks that turn a failed call into one line saying what went wrong. Not for the event loop.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>

namespace ringside::db {

struct ConnectionCloser {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;
using Result = std::unique_ptr<PGresult, ResultClearer>;

// Connects to any libpq URL or conninfo string, giving up after connect_timeout_s; throws
// std::runtime_error naming the target (without its password) on failure.
Connection connect(const std::string& url, int connect_timeout_s = 10);

// Runs one statement without parameters; throws unless it returns `expected`.
Result execute(PGconn* connection, const char* sql, ExecStatusType expected = PGRES_COMMAND_OK);

// The first line of libpq's message, which is the one a user needs.
std::string first_line(std::string_view message);

}  // namespace ringside::db
