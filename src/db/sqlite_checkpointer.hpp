// SQLite's WAL checkpoints, off the workers' loops. A checkpoint copies the WAL's pages back into
// the database file and syncs both (synchronous=NORMAL syncs nowhere else): 5-10 ms on this
// project's machines, which SQLite's auto-checkpoint would spend inside whichever commit crossed
// 1000 pages, holding that worker's loop. Instead each worker's connection gets a WAL hook that
// only raises a flag, and one thread per file, with its own connection, runs the checkpoint
// (PASSIVE: it waits for no reader or writer, and none waits for it).
//
// A checkpoint beside steady writes starves: the writers append while it copies, so it never has
// caught up at the moment a writer begins, which is the only moment a writer starts the WAL over;
// the WAL grew to 3.4 GB under /updates (and a full disk stayed full). So the process's writers
// of a file and its checkpoints take turns (`writers()`: the writers run on SQLite threads of
// their own, never on a loop, so waiting for a checkpoint costs only writes). A WAL that is still
// kRestartPages long (readers held old frames when the writers began), or a writer that found the
// disk full, gets a RESTART checkpoint after the passive one, which also waits for those readers.
//
//   std::shared_ptr<Checkpointer> checkpointer = Checkpointer::for_file(path);  // at open
//   checkpointer->attach(worker_connection);   // replaces SQLite's auto-checkpoint
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "db/sqlite_schema.hpp"

namespace ringside::db::sqlite {

class Checkpointer {
 public:
  // SQLite's own auto-checkpoint threshold, in WAL pages.
  static constexpr int kCheckpointPages = 1000;
  // A WAL this long gets a RESTART checkpoint after the passive one (4 KiB pages: 16 MiB).
  static constexpr int kRestartPages = 4000;
  // How long a RESTART checkpoint waits for the write lock and for readers, in its own thread.
  static constexpr int kRestartWaitMs = 200;

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
  // The same, and the WAL is to start over whatever its length (a writer found the disk full:
  // only a WAL started over frees its space).
  void request_restart();
  // Held by a writer for its transaction and by this thread for a checkpoint.
  [[nodiscard]] std::mutex& writers() { return writers_; }
  // Checkpoints run so far, and of those the RESTART ones (tests).
  [[nodiscard]] std::uint64_t checkpoints() const { return checkpoints_.load(); }
  [[nodiscard]] std::uint64_t restarts() const { return restarts_.load(); }

 private:
  void run();

  Handle db_;
  std::mutex writers_;
  std::atomic<bool> wanted_{false};
  std::atomic<bool> restart_wanted_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> checkpoints_{0};
  std::atomic<std::uint64_t> restarts_{0};
  std::thread thread_;
};

}  // namespace ringside::db::sqlite
