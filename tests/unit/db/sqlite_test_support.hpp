// For the SQLite tests: a temporary directory removed with everything in it, a raw second
// connection (another process's, as far as SQLite can tell), and a Sink that records its calls.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "db/database.hpp"

namespace ringside::db::test_support {

class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ringside-sqlite-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A connection of its own, with no busy timeout: it fails at once where ours would wait.
class RawConnection {
 public:
  explicit RawConnection(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      throw std::runtime_error("cannot open " + path);
    }
  }
  ~RawConnection() { sqlite3_close_v2(db_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // The result code of running `sql` (SQLITE_OK when it worked).
  int exec(const std::string& sql) { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }
  // The first column of each row of `sql`, as text.
  std::vector<std::string> column(const std::string& sql) {
    std::vector<std::string> values;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(statement) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
      values.emplace_back(text != nullptr ? text : "");
    }
    sqlite3_finalize(statement);
    return values;
  }
  std::string value(const std::string& sql) {
    auto values = column(sql);
    return values.empty() ? "(no row)" : values.front();
  }

 private:
  sqlite3* db_ = nullptr;
};

struct UserCopy {
  std::int64_t id;
  std::string name, email, created_at;
  bool operator==(const UserCopy&) const = default;
};

class Recorder final : public Sink {
 public:
  void on_user(const UserRow& row) override {
    users.push_back({row.id, std::string(row.name), std::string(row.email), std::string(row.created_at)});
  }
  void on_world(std::size_t index, const WorldRow& row) override {
    worlds.emplace_back(index, row);
  }
  void on_fortune(const FortuneRow& row) override {
    fortunes.emplace_back(row.id, std::string(row.message));
  }
  void on_done(Outcome result, std::string_view text) override {
    ++done;
    outcome = result;
    detail = text;
  }

  std::vector<UserCopy> users;
  std::vector<std::pair<std::size_t, WorldRow>> worlds;
  std::vector<std::pair<std::int32_t, std::string>> fortunes;
  int done = 0;
  Outcome outcome = Outcome::kOk;
  std::string detail;
};

}  // namespace ringside::db::test_support
