#include "db/sqlite_schema.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "db/schema.hpp"
#include "db/sqlite_database.hpp"
#include "sqlite_test_support.hpp"

namespace ringside::db {
namespace {

using test_support::RawConnection;
using test_support::TempDirectory;

// Every row of the three tables, in id order, as one text: equal texts mean equal data.
std::string dump(const std::string& path) {
  RawConnection raw(path);
  std::string text;
  for (const char* sql :
       {"SELECT id || '|' || name || '|' || email || '|' || created_at FROM users ORDER BY id",
        "SELECT id || '|' || randomnumber FROM world ORDER BY id",
        "SELECT id || '|' || message FROM fortune ORDER BY id"}) {
    for (const std::string& row : raw.column(sql)) text += row + "\n";
    text += "--\n";
  }
  return text;
}

// The seed as db/schema.hpp describes it, built here independently of the code under test.
std::string expected_seed() {
  std::string text;
  for (int id = 1; id <= kUserRows; ++id) {
    const std::int64_t seconds = id;  // since 2024-01-01T00:00:00Z
    char created_at[32];
    std::snprintf(created_at, sizeof created_at, "2024-01-01T%02lld:%02lld:%02lldZ",
                  static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                  static_cast<long long>(seconds % 60));
    const std::string n = std::to_string(id);
    text += n + "|User " + n + "|user" + n + "@example.com|" + created_at + "\n";
  }
  text += "--\n";
  for (int id = 1; id <= kWorldRows; ++id) {
    text += std::to_string(id) + "|" + std::to_string(world_random_number(id)) + "\n";
  }
  text += "--\n";
  for (std::size_t i = 0; i < kFortunes.size(); ++i) {
    text += std::to_string(i + 1) + "|" + std::string(kFortunes[i]) + "\n";
  }
  return text + "--\n";
}

std::string error_of(void (*action)(const std::string&), const std::string& path) {
  try {
    action(path);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(PrepareSqlite, CreatesAndSeedsANewFileInWalMode) {
  TempDirectory directory;
  const std::string path = directory.file("new.db");
  prepare_sqlite(path);
  EXPECT_EQ(dump(path), expected_seed());
  RawConnection raw(path);
  EXPECT_EQ(raw.value("PRAGMA journal_mode"), "wal");
}

TEST(PrepareSqlite, LeavesTheRowsOfAnExistingFileAlone) {
  TempDirectory directory;
  const std::string path = directory.file("used.db");
  prepare_sqlite(path);
  ASSERT_EQ(RawConnection(path).exec("UPDATE world SET randomnumber = 1 WHERE id <= 10"), SQLITE_OK);
  const std::string changed = dump(path);
  prepare_sqlite(path);
  EXPECT_EQ(dump(path), changed);
}

TEST(PrepareSqlite, SeedsATableThatIsMissing) {
  TempDirectory directory;
  const std::string path = directory.file("partial.db");
  prepare_sqlite(path);
  ASSERT_EQ(RawConnection(path).exec("DROP TABLE fortune"), SQLITE_OK);
  prepare_sqlite(path);
  EXPECT_EQ(dump(path), expected_seed());
}

TEST(InitSqlite, ReplacesEveryRowWithTheSeedAndIsIdempotent) {
  TempDirectory directory;
  const std::string path = directory.file("init.db");
  init_sqlite(path);
  EXPECT_EQ(dump(path), expected_seed());
  ASSERT_EQ(RawConnection(path).exec("UPDATE world SET randomnumber = 1 WHERE id <= 100;"
                                     "INSERT INTO users VALUES (10001, 'x', 'x', 'x');"
                                     "DELETE FROM fortune WHERE id = 3"),
            SQLITE_OK);
  init_sqlite(path);
  EXPECT_EQ(dump(path), expected_seed());
  init_sqlite(path);
  EXPECT_EQ(dump(path), expected_seed());
}

TEST(PrepareSqlite, AFileThatIsNotADatabaseThrowsOneLineNamingIt) {
  TempDirectory directory;
  const std::string path = directory.file("garbage.db");
  std::ofstream(path) << std::string(4096, '\x5a') << "not a database";
  for (auto action : {prepare_sqlite, init_sqlite}) {
    const std::string message = error_of(action, path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("not a usable SQLite database"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(PrepareSqlite, ADirectoryOrAMissingDirectoryThrowsNamingIt) {
  TempDirectory directory;
  for (const std::string& path : {directory.file(""), directory.file("no/such/dir/x.db")}) {
    const std::string message = error_of(prepare_sqlite, path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("--db sqlite:"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ringside::db
