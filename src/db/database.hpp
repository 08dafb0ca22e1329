// One worker's access to the application database, whatever the backend: the four operations
// the database routes need, answered through a Sink on the worker's own thread, usually on a later
// turn of the worker's loop (PostgreSQL pipelined on the loop; SQLite run by threads of its own),
// sometimes before the call returns (a failure known at once). Nothing here blocks the loop: not
// on the network, the disk, or another thread.
//
//   class UserCall : public db::Sink {
//     void on_user(const db::UserRow& row) override { ...copy what is needed... }
//     void on_done(db::Outcome outcome, std::string_view detail) override { ...answer... }
//   };
//   database.find_user(42, call);      // `call` must live until its on_done
//
// Every operation ends with exactly one on_done. Row views are valid only during the call that
// hands them over. Spans passed in must stay valid (and unchanged) until on_done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/loop_participant.hpp"

namespace ringside::db {

struct UserRow {
  std::int64_t id = 0;
  std::string_view name;
  std::string_view email;
  std::string_view created_at;  // RFC 3339 in UTC: "2024-01-01T00:00:01Z"
};

struct WorldRow {
  std::int32_t id = 0;
  std::int32_t random_number = 0;
};

struct FortuneRow {
  std::int32_t id = 0;
  std::string_view message;
};

enum class Outcome : std::uint8_t {
  kOk,
  kUnavailable,  // no working connection to the database now (reconnecting), or its file cannot
                 // be written now (SQLite: read-only, immutable, disk full): try again later
  kTimeout,      // no answer within the query timeout (--db-timeout)
  kBusy,         // SQLite's write lock stayed taken for the whole timeout
  kFailed,       // the database refused the operation (a query error); the connection is fine
};

// True when the client should simply try again (503 with Retry-After), false for a real error.
constexpr bool is_transient(Outcome outcome) {
  return outcome == Outcome::kUnavailable || outcome == Outcome::kTimeout ||
         outcome == Outcome::kBusy;
}

class Sink {
 public:
  // find_user: called once when the user exists; not at all when it does not.
  virtual void on_user(const UserRow& /*row*/) {}
  // read_worlds: called for each id found, with its index in the ids asked for (any order).
  virtual void on_world(std::size_t /*index*/, const WorldRow& /*row*/) {}
  // read_fortunes: called for each row (any order).
  virtual void on_fortune(const FortuneRow& /*row*/) {}
  // Exactly once per operation, after its rows. `detail` names the problem when not kOk.
  virtual void on_done(Outcome outcome, std::string_view detail) = 0;

 protected:
  ~Sink() = default;
};

class Database : public core::LoopParticipant {
 public:
  // SELECT id, name, email, created_at FROM users WHERE id = $1
  virtual void find_user(std::int64_t id, Sink& sink) = 0;
  // SELECT id, randomnumber FROM world WHERE id = $1, once per id (TechEmpower's rule: one query
  // per row, not one IN list). Up to kMaxWorldIds ids.
  virtual void read_worlds(std::span<const std::int32_t> ids, Sink& sink) = 0;
  // SELECT id, message FROM fortune
  virtual void read_fortunes(Sink& sink) = 0;
  // Sets each row's randomnumber, all in one statement or transaction (batched). Up to
  // kMaxWorldIds rows, sorted by id by the caller so that concurrent writers lock rows in the
  // same order.
  virtual void write_worlds(std::span<const WorldRow> rows, Sink& sink) = 0;
};

inline constexpr std::size_t kMaxWorldIds = 500;

}  // namespace ringside::db
