// SQLite's WAL checkpoints, off the workers' loops. A checkpoint copies the WAL's pages back into
// the database file and syncs both (synchronous=NORMAL syncs nowhere else): 5-10 ms on this
// project's machines, which SQLite's auto-checkpoint would spend inside whichever commit crossed
// 1000 pages, holding that worker's loop. Instead each worker's connection gets a WAL hook that
// only raises a flag, and one thread per file, with its own connection, runs the checkpoint
// (PASSIVE: it waits for no reader or writer, and none waits for it).
//
//   std::shared_ptr<Checkpointer> checkpointer = Checkpointer::for_file(path);  // at open
//   checkpointer->attach(worker_connection);   // replaces SQLite's auto-checkpoint
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "db/sqlite_schema.hpp"

namespace ringside::db::sqlite {

class Checkpointer {
 public:
  // SQLite's own auto-checkpoint threshold, in WAL pages.
  static constexpr int kCheckpointPages = 1000;

  // The process's checkpointer for `path`, started on first use, shared by the connections that
  // hold it; the last to let go stops it. Call at set-up (it takes a lock), never per request.
  static std::shared_ptr<Checkpointer> for_file(const std::string& path);

  explicit Checkpointer(const std::string& path);  // throws like sqlite::open_file
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // From now on `db`'s commits ask this thread for checkpoints instead of running them. `db`
  // must be closed before this Checkpointer goes.
  void attach(sqlite3* db);
  // Never waits: raises the flag and wakes the thread if it sleeps.
  void request();
  // Checkpoints run so far (tests).
  [[nodiscard]] std::uint64_t checkpoints() const { return checkpoints_.load(); }

 private:
  void run();

  Handle db_;
  std::atomic<bool> wanted_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> checkpoints_{0};
  std::thread thread_;
};

}  // namespace ringside::db::sqlite
