#include "db/sqlite_checkpointer.hpp"

#include <map>
#include <mutex>

namespace ringside::db::sqlite {
namespace {

// Called by SQLite after each commit on an attached connection, in the committing thread.
int on_commit(void* checkpointer, sqlite3*, const char*, int wal_pages) {
  if (wal_pages >= Checkpointer::kCheckpointPages) static_cast<Checkpointer*>(checkpointer)->request();
  return SQLITE_OK;
}

}  // namespace

std::shared_ptr<Checkpointer> Checkpointer::for_file(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<Checkpointer>> running;
  std::lock_guard lock(mutex);
  std::weak_ptr<Checkpointer>& slot = running[path];
  std::shared_ptr<Checkpointer> checkpointer = slot.lock();
  if (!checkpointer) {
    checkpointer = std::make_shared<Checkpointer>(path);
    slot = checkpointer;
  }
  return checkpointer;
}

Checkpointer::Checkpointer(const std::string& path)
    : db_(open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)) {
  execute(db_.get(), "PRAGMA synchronous = NORMAL", path);
  // Only a RESTART checkpoint waits (sleeping in this thread); a PASSIVE one never does.
  sqlite3_busy_timeout(db_.get(), kRestartWaitMs);
  thread_ = std::thread([this] { run(); });
}

Checkpointer::~Checkpointer() {
  stopping_.store(true);
  wanted_.store(true);
  wanted_.notify_one();
  thread_.join();
}

void Checkpointer::attach(sqlite3* db) { sqlite3_wal_hook(db, on_commit, this); }

void Checkpointer::request() {
  if (!wanted_.exchange(true)) wanted_.notify_one();
}

void Checkpointer::request_restart() {
  restart_wanted_.store(true);
  request();
}

void Checkpointer::run() {
  while (true) {
    wanted_.wait(false);
    if (stopping_.load()) return;
    wanted_.store(false);
    // A failure (the file gone, the disk full) leaves the WAL to grow; the next commit asks again.
    std::lock_guard turn(writers_);
    int wal_pages = 0;
    sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_pages, nullptr);
    // Still long: the last checkpoints did not start it over (readers held old frames when the
    // writer began). SQLITE_BUSY when the wait for them ran out: the next request tries again.
    if (restart_wanted_.exchange(false) || wal_pages >= kRestartPages) {
      sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
      restarts_.fetch_add(1);
    }
    checkpoints_.fetch_add(1);
  }
}

}  // namespace ringside::db::sqlite
