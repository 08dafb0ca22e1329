#include "db/sqlite_thread.hpp"

#include <algorithm>

namespace ringside::db::sqlite {
namespace {

using namespace std::chrono_literals;

// A write that finds the lock taken is tried again after 1 ms, then 2 ms, then every 4 ms: soon
// enough that a lock held for a statement or two costs little, seldom enough that a long holder
// (`ringside db init`, a backup) does not spin the thread.
constexpr core::Duration kFirstRetry = 1ms;
constexpr core::Duration kMaxRetry = 4ms;

}  // namespace

SqliteThread::SqliteThread(const std::string& path, Role role, std::function<void()> jobs_done)
    : role_(role), connection_(path), jobs_done_(std::move(jobs_done)), thread_([this] { run(); }) {}

SqliteThread::~SqliteThread() { stop(); }

void SqliteThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SqliteThread::submit(JobList& jobs) {
  if (jobs.empty()) return;
  bool wake;
  {
    std::lock_guard lock(mutex_);
    inbox_.append(jobs);
    wake = sleeping_;
  }
  if (wake) work_.notify_one();
}

JobList SqliteThread::take_done() {
  JobList done;
  std::lock_guard lock(mutex_);
  done.append(done_);
  return done;
}

bool SqliteThread::wait_for_work(JobList& taken) {
  std::unique_lock lock(mutex_);
  while (true) {
    if (stopping_) return false;
    if (!inbox_.empty()) {
      taken.append(inbox_);
      return true;
    }
    sleeping_ = true;
    if (waiting_.empty()) {
      work_.wait(lock);
    } else if (core::Clock::now() < retry_at_) {
      work_.wait_until(lock, retry_at_);
    } else {
      sleeping_ = false;
      return true;  // time to try the first waiting write again
    }
    sleeping_ = false;
  }
}

void SqliteThread::run() {
  JobList taken;
  JobList done;
  while (wait_for_work(taken)) {
    if (role_ == Role::kReader) {
      run_reads(taken, done);
    } else {
      waiting_.append(taken);
      run_writes(done);
    }
    hand_back(done);
  }
}

void SqliteThread::run_reads(JobList& jobs, JobList& done) {
  while (Job* job = jobs.pop()) {
    if (!job->abandoned.load(std::memory_order_acquire)) {
      switch (job->kind()) {
        case Job::Kind::kFindUser:
          connection_.find_user(job->user_id(), *job);
          break;
        case Job::Kind::kReadWorlds:
          connection_.read_worlds(job->ids(), *job);
          break;
        case Job::Kind::kReadFortunes:
          connection_.read_fortunes(*job);
          break;
        case Job::Kind::kWriteWorlds:
          job->on_done(Outcome::kFailed, "a write was sent to the SQLite reader thread");
          break;
      }
    }
    done.push(*job);
  }
}

void SqliteThread::run_writes(JobList& done) {
  while (Job* job = waiting_.front()) {
    if (!job->abandoned.load(std::memory_order_acquire)) {
      const WriteAttempt attempt = connection_.try_write(job->rows());
      if (attempt == WriteAttempt::kLockTaken) {
        // The first of the waiting writes stays first; every write behind it waits too.
        const bool was_waiting = job->waiting_for_lock.exchange(true, std::memory_order_release);
        retry_after_ = was_waiting ? std::min(retry_after_ * 2, kMaxRetry) : kFirstRetry;
        retry_at_ = core::Clock::now() + retry_after_;
        return;
      }
      if (attempt == WriteAttempt::kDone) {
        job->on_done(Outcome::kOk, {});
      } else {
        job->on_done(failure_outcome(connection_.error_code()), connection_.error());
      }
    }
    done.push(*waiting_.pop());
  }
}

void SqliteThread::hand_back(JobList& done) {
  if (done.empty()) return;
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    was_empty = done_.empty();
    done_.append(done);
  }
  // Once per batch, and only when the loop has not yet been told about an earlier one (it takes
  // the whole list when it wakes).
  if (was_empty) jobs_done_();
}

}  // namespace ringside::db::sqlite
