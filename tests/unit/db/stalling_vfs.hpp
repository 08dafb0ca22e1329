// For the SQLite tests: a disk that stops. A VFS that wraps the default one and, while stalled,
// holds every write (xWrite and xSync, of any file) inside the call until released, as the kernel
// holds a writer on a frozen filesystem or a device that stopped answering. Registered as the
// default VFS for its lifetime, so connections opened meanwhile use it.
//
//   StallingVfs disk;                 // before opening the connections
//   disk.stall();  ...  EXPECT_TRUE(disk.wait_for_held(1, 10s));  ...  disk.release();
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace ringside::db::test_support {

class StallingVfs {
 public:
  StallingVfs() {
    base_ = sqlite3_vfs_find(nullptr);
    if (base_ == nullptr || instance_ != nullptr) throw std::logic_error("StallingVfs: no default VFS, or two");
    instance_ = this;
    vfs_ = *base_;
    vfs_.zName = "ringside-stalling";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + base_->szOsFile;
    vfs_.pNext = nullptr;
    vfs_.xOpen = open;
    if (sqlite3_vfs_register(&vfs_, 1) != SQLITE_OK) throw std::runtime_error("sqlite3_vfs_register");
  }
  ~StallingVfs() {
    release();
    sqlite3_vfs_unregister(&vfs_);
    instance_ = nullptr;
  }
  StallingVfs(const StallingVfs&) = delete;
  StallingVfs& operator=(const StallingVfs&) = delete;

  void stall() {
    std::lock_guard lock(mutex_);
    stalled_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      stalled_ = false;
    }
    changed_.notify_all();
  }
  // True once at least `count` writes are held, false after `bound`.
  bool wait_for_held(int count, std::chrono::milliseconds bound) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, bound, [&] { return held_ >= count; });
  }
  [[nodiscard]] int held() {
    std::lock_guard lock(mutex_);
    return held_;
  }

 private:
  struct File {
    sqlite3_file base;    // pMethods: methods_ below
    sqlite3_file* real;   // the default VFS's file, right after this struct
  };
  static sqlite3_file* real(sqlite3_file* file) { return reinterpret_cast<File*>(file)->real; }

  void hold() {
    std::unique_lock lock(mutex_);
    ++held_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !stalled_; });
    --held_;
  }

  static int open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
    auto* shim = reinterpret_cast<File*>(file);
    shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
    const int code = instance_->base_->xOpen(instance_->base_, name, shim->real, flags, out_flags);
    shim->base.pMethods = (code == SQLITE_OK && shim->real->pMethods != nullptr) ? &methods_ : nullptr;
    return code;
  }

  static int close(sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); }
  static int read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
    return real(f)->pMethods->xRead(real(f), out, amount, offset);
  }
  static int write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
    instance_->hold();
    return real(f)->pMethods->xWrite(real(f), data, amount, offset);
  }
  static int truncate(sqlite3_file* f, sqlite3_int64 size) {
    return real(f)->pMethods->xTruncate(real(f), size);
  }
  static int sync(sqlite3_file* f, int flags) {
    instance_->hold();
    return real(f)->pMethods->xSync(real(f), flags);
  }
  static int file_size(sqlite3_file* f, sqlite3_int64* size) {
    return real(f)->pMethods->xFileSize(real(f), size);
  }
  static int lock(sqlite3_file* f, int level) { return real(f)->pMethods->xLock(real(f), level); }
  static int unlock(sqlite3_file* f, int level) { return real(f)->pMethods->xUnlock(real(f), level); }
  static int check_reserved(sqlite3_file* f, int* out) {
    return real(f)->pMethods->xCheckReservedLock(real(f), out);
  }
  static int file_control(sqlite3_file* f, int op, void* arg) {
    return real(f)->pMethods->xFileControl(real(f), op, arg);
  }
  static int sector_size(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
  static int device(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
  static int shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
    return real(f)->pMethods->xShmMap(real(f), page, size, extend, out);
  }
  static int shm_lock(sqlite3_file* f, int offset, int n, int flags) {
    return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
  }
  static void shm_barrier(sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); }
  static int shm_unmap(sqlite3_file* f, int delete_flag) {
    return real(f)->pMethods->xShmUnmap(real(f), delete_flag);
  }
  static int fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
    return real(f)->pMethods->xFetch(real(f), offset, amount, out);
  }
  static int unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
    return real(f)->pMethods->xUnfetch(real(f), offset, p);
  }

  static inline StallingVfs* instance_ = nullptr;
  static inline const sqlite3_io_methods methods_ = {
      3,           close,    read,         write,    truncate,   sync,        file_size,
      lock,        unlock,   check_reserved, file_control, sector_size, device, shm_map,
      shm_lock,    shm_barrier, shm_unmap, fetch,    unfetch};

  sqlite3_vfs* base_ = nullptr;
  sqlite3_vfs vfs_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stalled_ = false;
  int held_ = 0;
};

}  // namespace ringside::db::test_support
