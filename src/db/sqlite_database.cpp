#include "db/sqlite_database.hpp"

#include <deque>

#include "core/waker.hpp"
#include "db/sqlite_job.hpp"
#include "db/sqlite_schema.hpp"
#include "db/sqlite_thread.hpp"

namespace ringside::db {
namespace {

using core::TimePoint;
using sqlite::Job;
using sqlite::JobList;
using sqlite::SqliteThread;

// A worker's SQLite database, as its loop sees it: every operation becomes a pooled Job, the jobs
// of one loop turn go to the worker's reader or writer thread in one hand-over (after_events), and
// the threads' answers come back through an eventfd the loop watches. The loop keeps each job's
// deadline: a job unanswered when --db-timeout passes is answered at once (503) and abandoned, so
// a thread stuck in the disk or in SQLite costs its requests their timeout, never the loop.
class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const std::string& path, double timeout_s, core::EventLoop& loop);
  ~SqliteDatabase() override;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  void find_user(std::int64_t id, Sink& sink) override;
  void read_worlds(std::span<const std::int32_t> ids, Sink& sink) override;
  void read_fortunes(Sink& sink) override;
  void write_worlds(std::span<const WorldRow> rows, Sink& sink) override;

  void after_events() override;
  [[nodiscard]] TimePoint next_deadline() const override;
  void on_timer(TimePoint now) override;

 private:
  [[nodiscard]] Job& start(Sink& sink);
  void forget(Job& job);  // off the in-flight list
  void collect();         // the threads' answers, delivered
  void collect(JobList done);

  core::Duration timeout_;
  core::EventLoop& loop_;
  // The pool: nodes never move (deque), reused through free_ (their buffers keep their capacity).
  std::deque<Job> jobs_;
  JobList free_;
  // This turn's jobs, handed to the threads by after_events().
  JobList reads_;
  JobList writes_;
  // Every job asked and not yet answered, oldest first: all wait the same timeout, so the first
  // gives up first.
  Job* first_in_flight_ = nullptr;
  Job* last_in_flight_ = nullptr;
  core::Waker answers_;
  SqliteThread reader_;  // after answers_ and jobs_: stopped before either goes
  SqliteThread writer_;
};

SqliteDatabase::SqliteDatabase(const std::string& path, double timeout_s, core::EventLoop& loop)
    : timeout_(core::seconds_to_duration(timeout_s)),
      loop_(loop),
      answers_(loop, [this] { collect(); }),
      reader_(path, SqliteThread::Role::kReader, [this] { answers_.wake(); }),
      writer_(path, SqliteThread::Role::kWriter, [this] { answers_.wake(); }) {}

SqliteDatabase::~SqliteDatabase() {
  reader_.stop();
  writer_.stop();
  // Every operation ends with an on_done, even those the threads had not answered.
  while (Job* job = first_in_flight_) {
    forget(*job);
    job->sink->on_done(Outcome::kUnavailable, "the server is stopping");
  }
}

Job& SqliteDatabase::start(Sink& sink) {
  Job* job = free_.pop();
  if (job == nullptr) job = &jobs_.emplace_back();
  job->sink = &sink;
  job->answered = false;
  job->give_up_at = loop_.now() + timeout_;
  job->later_in_flight = nullptr;
  job->earlier_in_flight = last_in_flight_;
  if (last_in_flight_ != nullptr) {
    last_in_flight_->later_in_flight = job;
  } else {
    first_in_flight_ = job;
  }
  last_in_flight_ = job;
  return *job;
}

void SqliteDatabase::forget(Job& job) {
  job.answered = true;
  if (job.earlier_in_flight != nullptr) {
    job.earlier_in_flight->later_in_flight = job.later_in_flight;
  } else {
    first_in_flight_ = job.later_in_flight;
  }
  if (job.later_in_flight != nullptr) {
    job.later_in_flight->earlier_in_flight = job.earlier_in_flight;
  } else {
    last_in_flight_ = job.earlier_in_flight;
  }
  job.earlier_in_flight = job.later_in_flight = nullptr;
}

void SqliteDatabase::find_user(std::int64_t id, Sink& sink) {
  Job& job = start(sink);
  job.ask_user(id);
  reads_.push(job);
}

void SqliteDatabase::read_worlds(std::span<const std::int32_t> ids, Sink& sink) {
  Job& job = start(sink);
  job.ask_worlds(ids);
  reads_.push(job);
}

void SqliteDatabase::read_fortunes(Sink& sink) {
  Job& job = start(sink);
  job.ask_fortunes();
  reads_.push(job);
}

void SqliteDatabase::write_worlds(std::span<const WorldRow> rows, Sink& sink) {
  Job& job = start(sink);
  job.ask_write(rows);
  writes_.push(job);
}

void SqliteDatabase::after_events() {
  reader_.submit(reads_);
  writer_.submit(writes_);
}

void SqliteDatabase::collect() {
  collect(reader_.take_done());
  collect(writer_.take_done());
}

void SqliteDatabase::collect(JobList done) {
  while (Job* job = done.pop()) {
    if (!job->answered) {
      forget(*job);
      // The sink may ask the next operation from here (/updates writes from its reads' on_done):
      // this job goes back to the pool only after.
      job->deliver(*job->sink);
    }
    free_.push(*job);
  }
}

TimePoint SqliteDatabase::next_deadline() const {
  return first_in_flight_ != nullptr ? first_in_flight_->give_up_at : TimePoint::max();
}

void SqliteDatabase::on_timer(TimePoint now) {
  while (first_in_flight_ != nullptr && first_in_flight_->give_up_at <= now) {
    Job& job = *first_in_flight_;
    forget(job);
    // The thread still owns the job: it skips it if it has not started, and hands it back.
    job.abandoned.store(true, std::memory_order_release);
    if (job.kind() == Job::Kind::kWriteWorlds && job.waiting_for_lock.load(std::memory_order_acquire)) {
      job.sink->on_done(Outcome::kBusy, "SQLite's write lock stayed taken for the whole --db-timeout");
    } else {
      job.sink->on_done(Outcome::kTimeout,
                        "SQLite did not answer within --db-timeout: is its disk stalled or "
                        "overloaded?");
    }
  }
}

}  // namespace

void prepare_sqlite(const std::string& path) {
  sqlite::Handle db =
      sqlite::open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
  sqlite::check_usable(db.get(), path);
  sqlite::seed(db.get(), path, sqlite::Seed::kMissingTables);
}

void init_sqlite(const std::string& path) {
  sqlite::Handle db =
      sqlite::open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
  sqlite::check_usable(db.get(), path);
  sqlite::seed(db.get(), path, sqlite::Seed::kAllTables);
}

std::unique_ptr<Database> open_sqlite_database(const std::string& path, double timeout_s,
                                               core::EventLoop& loop) {
  return std::make_unique<SqliteDatabase>(path, timeout_s, loop);
}

}  // namespace ringside::db
