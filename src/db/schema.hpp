// The database every ringside route and test runs on, created and seeded in one transaction:
//   users   (id, name, email, created_at)  10,000 rows: "User N", "userN@example.com",
//                                          2024-01-01T00:00:00Z + N seconds
//   world   (id, randomnumber)             10,000 rows, randomnumber in 1..10000 from a fixed seed
//   fortune (id, message)                  TechEmpower's 12 rows, byte for byte
// Table and column names are unquoted, so TechEmpower's `SELECT id, randomNumber FROM World`
// finds them. Seeding is idempotent: it replaces the three tables' rows, so running it twice, or
// after /updates changed World, leaves exactly the data above.
#pragma once

#include <libpq-fe.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace ringside::db {

inline constexpr int kUserRows = 10'000;
inline constexpr int kWorldRows = 10'000;
inline constexpr int kMaxRandomNumber = 10'000;
inline constexpr std::int64_t kUsersEpoch = 1'704'067'200;  // 2024-01-01T00:00:00Z

// TechEmpower's Fortune table (ids 1..12 in this order).
inline constexpr std::array<std::string_view, 12> kFortunes = {
    "fortune: No such file or directory",
    "A computer scientist is someone who fixes things that aren't broken.",
    "After enough decimal places, nobody gives a damn.",
    "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
    "A computer program does what you tell it to do, not what you want it to do.",
    "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen",
    "Any program that runs right is obsolete.",
    "A list is only as strong as its weakest link. \u2014 Donald Knuth",
    "Feature: A bug with seniority.",
    "Computers make very fast, very accurate mistakes.",
    "<script>alert(\"This should not be displayed in a browser alert box.\");</script>",
    "\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af",
};

// World's randomnumber for row `id` (1-based): splitmix64 of a fixed seed, so every run and every
// machine seeds the same table without relying on a standard library's distribution.
int world_random_number(int id);

struct InitResult {
  bool stat_statements = false;  // pg_stat_statements is installed in this database
};

// Creates the tables if missing and (re)seeds them in one transaction, then enables
// pg_stat_statements if the server offers it and the user may. Throws std::runtime_error with
// one line on failure (nothing is changed then).
InitResult init_schema(PGconn* connection);

}  // namespace ringside::db
