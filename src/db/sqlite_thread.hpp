// A thread with a SQLite connection of its own that runs a worker's SQLite jobs (db/sqlite_job.hpp)
// so that the worker's loop never waits on SQLite: a call blocked on the disk or sleeping inside
// SQLite holds this thread, while the loop keeps serving and answers the job's request itself
// when --db-timeout passes. Each worker has two: a reader and a writer, so that reads (which never
// wait for a writer in WAL mode) never queue behind a write stuck on the disk or the write lock.
//
//   SqliteThread reader(path, SqliteThread::Role::kReader, [&] { waker.wake(); });
//   reader.submit(batch);            // after the loop's turn: one hand-over, one wake-up at most
//   JobList done = reader.take_done();   // when woken: jobs answered (or skipped if abandoned)
//
// The writer runs writes in the order asked. One that finds the write lock taken (another worker,
// another process) stays first and is tried again after 1 ms, then 2 ms, then every 4 ms; the
// writes behind it wait with it. Jobs the loop abandoned are handed back without being run.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.hpp"
#include "db/sqlite_connection.hpp"
#include "db/sqlite_job.hpp"

namespace ringside::db::sqlite {

class SqliteThread {
 public:
  enum class Role : std::uint8_t { kReader, kWriter };

  // Opens the connection in the caller's thread (throws one line naming the file), then starts
  // the thread. `jobs_done` is called from the thread when its done list stops being empty.
  SqliteThread(const std::string& path, Role role, std::function<void()> jobs_done);
  ~SqliteThread();  // stop()
  SqliteThread(const SqliteThread&) = delete;
  SqliteThread& operator=(const SqliteThread&) = delete;

  // The loop's side. submit() takes every job of `jobs`, in order.
  void submit(JobList& jobs);
  [[nodiscard]] JobList take_done();
  // Waits for the statement running now (if any) to end, then for the thread; jobs not handed
  // back stay where they are, unanswered. Idempotent.
  void stop();

 private:
  void run();
  // Takes the inbox when there is one; waits while there is nothing to do (or until the next
  // retry of a waiting write). False when stopping.
  [[nodiscard]] bool wait_for_work(JobList& taken);
  void run_reads(JobList& jobs, JobList& done);
  void run_writes(JobList& done);
  void hand_back(JobList& done);

  Role role_;
  SqliteConnection connection_;
  std::function<void()> jobs_done_;

  std::mutex mutex_;
  std::condition_variable work_;
  JobList inbox_;           // under mutex_
  JobList done_;            // under mutex_
  bool sleeping_ = false;   // under mutex_: the thread waits on work_
  bool stopping_ = false;   // under mutex_

  // The writer's own: writes not yet run, first asked first; and when to try the first again.
  JobList waiting_;
  core::TimePoint retry_at_ = core::TimePoint::min();
  core::Duration retry_after_{};

  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace ringside::db::sqlite
