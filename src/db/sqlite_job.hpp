// One SQLite operation on its way between a worker's loop and one of its SQLite threads: what was
// asked, copied in (so the loop may answer a request that timed out and forget it while the thread
// still works on it), and what the thread found, copied out of SQLite's buffers, for the loop to
// hand to the operation's Sink. Jobs are pooled by the worker's SqliteDatabase: their buffers keep
// their capacity, so a warm pool allocates nothing.
//
//   loop:    job.ask_user(42); thread.submit(list)          // ... later, from the thread's done list:
//   thread:  connection.find_user(job.user_id, job);        // the job is the connection's Sink
//   loop:    job.deliver(*sink);                            // rows, then on_done
//
// Ownership moves with the lists (under the thread's mutex); only `abandoned` and
// `waiting_for_lock` are read by one side while the other owns the job.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/intrusive_queue.hpp"
#include "db/database.hpp"

namespace ringside::db::sqlite {

class Job final : public Sink {
 public:
  enum class Kind : std::uint8_t { kFindUser, kReadWorlds, kReadFortunes, kWriteWorlds };

  // The loop's side: what to do. Each clears what an earlier use of the job found.
  void ask_user(std::int64_t id);
  void ask_worlds(std::span<const std::int32_t> ids);
  void ask_fortunes();
  void ask_write(std::span<const WorldRow> rows);

  // The loop's side, once the thread handed the job back: the rows found, then on_done.
  void deliver(Sink& to) const;

  // The thread's side: what it found (Sink), and the outcome of a write.
  void on_user(const UserRow& row) override;
  void on_world(std::size_t index, const WorldRow& row) override;
  void on_fortune(const FortuneRow& row) override;
  void on_done(Outcome outcome, std::string_view detail) override;

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] std::int64_t user_id() const { return user_id_; }
  [[nodiscard]] std::span<const std::int32_t> ids() const { return ids_; }
  [[nodiscard]] std::span<const WorldRow> rows() const { return rows_; }

  // Set by the loop when it answered without the thread (the request timed out, the server is
  // stopping): the thread skips the job if it has not started it, and hands it back as it is.
  std::atomic<bool> abandoned{false};
  // Set by the writer thread while the write waits for SQLite's write lock, so that a timeout
  // says "busy" (someone holds the lock) rather than "no answer" (the disk is stalled).
  std::atomic<bool> waiting_for_lock{false};

  // The lists the job travels in: a thread's inbox, done list or waiting writes, or the pool's
  // free list. One at a time.
  Job* next = nullptr;

  // The loop's own bookkeeping (the thread never touches these).
  Sink* sink = nullptr;
  core::TimePoint give_up_at;
  bool answered = false;
  Job* earlier_in_flight = nullptr;
  Job* later_in_flight = nullptr;

 private:
  struct FoundWorld {
    std::uint32_t index;
    WorldRow row;
  };
  struct FoundFortune {
    std::int32_t id;
    std::uint32_t offset, length;  // in text_
  };

  void start(Kind kind);
  [[nodiscard]] std::string_view text(std::uint32_t offset, std::uint32_t length) const {
    return std::string_view(text_).substr(offset, length);
  }

  Kind kind_ = Kind::kFindUser;
  std::int64_t user_id_ = 0;
  std::vector<std::int32_t> ids_;
  std::vector<WorldRow> rows_;

  bool user_found_ = false;
  std::int64_t found_user_id_ = 0;
  std::uint32_t name_length_ = 0, email_length_ = 0, created_at_length_ = 0;  // text_ in order
  std::vector<FoundWorld> worlds_;
  std::vector<FoundFortune> fortunes_;
  std::string text_;  // the user's texts, the fortunes' messages, then the detail
  Outcome outcome_ = Outcome::kOk;
  std::uint32_t detail_offset_ = 0, detail_length_ = 0;
};

// A first-in, first-out list of jobs linked through Job::next.
using JobList = core::IntrusiveQueue<Job, &Job::next>;

}  // namespace ringside::db::sqlite
