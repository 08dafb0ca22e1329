// One database route's request while its queries run: what was asked, the rows as they arrive,
// and how it ends, as a reply built at once (the backend answered inside the handler: PostgreSQL
// with no connection ready fails at once) or later through the request's PendingReply (the usual
// case: both backends answer on a later turn of the worker's loop).
// Calls and their row blocks are pooled by the worker's DatabaseCalls (below, what a call needs of
// its worker: the database, the pools, random row numbers): none is allocated in steady state.
// DatabaseWorker (routes/database_routes.hpp) is the worker's DatabaseCalls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "core/block_pool.hpp"
#include "core/free_list_pool.hpp"
#include "db/database.hpp"
#include "http/out_buffer.hpp"
#include "server/exchange.hpp"
#include "server/reply.hpp"

namespace ringside::routes {

class DatabaseCalls;

enum class CallKind : std::uint8_t { kUser, kWorld, kQueries, kFortunes, kUpdates };

class DatabaseCall final : public db::Sink {
 public:
  // The row block: ids and random numbers of up to kMaxWorldIds rows, the rows sorted for an
  // update, or the fortunes and their messages, or the user's JSON.
  static constexpr std::size_t kBlockBytes = 8 * 1024;

  void start(DatabaseCalls& owner, CallKind kind, char* block);
  // Runs the call's first operation on the worker's database, then answers: at once when the
  // database already did (the returned Reply's body lies in exchange.body()), else parks the
  // request and returns Reply::later().
  server::Reply run(server::Exchange& exchange);

  std::int64_t user_id = 0;
  std::uint32_t count = 1;  // world rows asked for
  DatabaseCall* next_free = nullptr;

  // The ids to read (count of them), written by the route before run().
  [[nodiscard]] std::span<std::int32_t> ids();

 private:
  struct FortuneEntry {
    std::int32_t id;
    std::uint16_t offset;
    std::uint16_t length;
  };
  static constexpr std::size_t kMaxFortunes = 64;

  // db::Sink
  void on_user(const db::UserRow& row) override;
  void on_world(std::size_t index, const db::WorldRow& row) override;
  void on_fortune(const db::FortuneRow& row) override;
  void on_done(db::Outcome outcome, std::string_view detail) override;

  void begin_operation();
  void begin_write();
  void finish(db::Outcome outcome, std::string_view detail);
  [[nodiscard]] server::Reply reply_into(http::OutBuffer& body);
  [[nodiscard]] server::Reply fail(http::OutBuffer& body, http::Status status, std::string_view what,
                                   std::string_view detail, bool retry);
  [[nodiscard]] std::span<std::int32_t> numbers();
  [[nodiscard]] std::span<db::WorldRow> sorted_rows();
  [[nodiscard]] std::span<FortuneEntry> fortunes();

  DatabaseCalls* owner_ = nullptr;
  server::PendingReply* pending_ = nullptr;
  char* block_ = nullptr;
  CallKind kind_ = CallKind::kUser;
  bool in_handler_ = false;
  bool finished_ = false;
  bool writing_ = false;       // /updates: the reads are done, the write is running
  bool overflow_ = false;      // rows did not fit the block
  db::Outcome outcome_ = db::Outcome::kOk;
  std::uint32_t found_ = 0;    // rows (or the user) seen
  std::uint16_t user_json_ = 0;       // bytes of the user's JSON at the block's start
  std::uint16_t fortune_bytes_ = 0;   // message bytes stored after the fortune entries
  char detail_[160] = {};
  std::uint8_t detail_len_ = 0;
};

// A worker's database and the pools of the calls that run on it.
class DatabaseCalls {
 public:
  DatabaseCalls(std::unique_ptr<db::Database> database, unsigned worker_index);
  ~DatabaseCalls();
  DatabaseCalls(const DatabaseCalls&) = delete;
  DatabaseCalls& operator=(const DatabaseCalls&) = delete;

  // The database is the worker's, not part of this object's state: reachable from const too.
  [[nodiscard]] db::Database& database() const { return *database_; }
  [[nodiscard]] DatabaseCall& acquire(CallKind kind);
  void release(DatabaseCall& call);
  void release_block(char* block);
  // A World id in 1..10000, and a random number for a row (1..10000, never `old`).
  [[nodiscard]] std::int32_t random_world_id();
  [[nodiscard]] std::int32_t new_random_number(std::int32_t old);
  [[nodiscard]] std::size_t calls_in_use() const { return calls_.in_use(); }

 private:
  [[nodiscard]] std::uint64_t next_random();

  std::unique_ptr<db::Database> database_;
  core::FreeListPool<DatabaseCall, &DatabaseCall::next_free> calls_;
  core::BlockPool blocks_{DatabaseCall::kBlockBytes, 256, 64};
  std::uint64_t random_state_;
};

}  // namespace ringside::routes
