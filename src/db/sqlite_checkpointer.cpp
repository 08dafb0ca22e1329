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

void Checkpointer::run() {
  while (true) {
    wanted_.wait(false);
    if (stopping_.load()) return;
    wanted_.store(false);
    // A failure (the file gone, the disk full) leaves the WAL to grow; the next commit asks again.
    sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    checkpoints_.fetch_add(1);
  }
}

}  // namespace ringside::db::sqlite
