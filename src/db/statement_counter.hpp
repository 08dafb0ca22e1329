// How many statements a PostgreSQL database has executed, as pg_stat_statements counts them (the
// way TechEmpower's verifier counts a framework's queries). `ringside compare` reads it before and
// after each point to report queries per request: a server that caches, batches or issues two
// queries per request shows it.
//
//   db::StatementCounter counter(url);           // one blocking connection, kept open
//   std::optional<std::uint64_t> before = counter.calls();
//   ... load ...
//   std::optional<std::uint64_t> after = counter.calls();   // nullopt: cannot be counted
//
// Counts the connected database's statements only, leaving out the counter's own queries. Never
// throws: a database without the module, or one that went away, counts nothing (nullopt), and
// `problem()` says why in one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/connection.hpp"

namespace ringside::db {

class StatementCounter {
 public:
  explicit StatementCounter(const std::string& url);

  std::optional<std::uint64_t> calls();
  const std::string& problem() const { return problem_; }

 private:
  Connection connection_;
  std::string problem_;
};

}  // namespace ringside::db
