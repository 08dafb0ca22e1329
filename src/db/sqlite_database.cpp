#include "db/sqlite_database.hpp"

#include <stdexcept>

namespace ringside::db {
namespace {

// Until the SQLite backend lands: every operation answers kUnavailable.
class NotYetDatabase final : public Database {
  void find_user(std::int64_t, Sink& sink) override { fail(sink); }
  void read_worlds(std::span<const std::int32_t>, Sink& sink) override { fail(sink); }
  void read_fortunes(Sink& sink) override { fail(sink); }
  void write_worlds(std::span<const WorldRow>, Sink& sink) override { fail(sink); }
  static void fail(Sink& sink) { sink.on_done(Outcome::kUnavailable, "SQLite is not built yet"); }
};

}  // namespace

void prepare_sqlite(const std::string&) {}

void init_sqlite(const std::string& path) {
  throw std::runtime_error("SQLite (" + path + ") is not supported yet: use --db postgres://...");
}

std::unique_ptr<Database> open_sqlite_database(const std::string&, double, core::EventLoop&) {
  return std::make_unique<NotYetDatabase>();
}

}  // namespace ringside::db
