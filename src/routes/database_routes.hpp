// The routes backed by the application database (db/database.hpp), on any backend:
//
//   GET /users/:id          {"id":1,"name":"User 1","email":"user1@example.com","created_at":"..."}
//                           404 for an unknown id, 400 for an id that is not a positive integer
//   GET /db                 one random World row: {"id":N,"randomNumber":M}
//   GET /queries?queries=N  N random rows (N clamped to 1..500 as TechEmpower's verifier wants)
//   GET /fortunes           all Fortune rows and one added at request time, sorted, as HTML
//   GET /updates?queries=N  N random rows read, given new random numbers, written back at once
//
// A database that cannot answer now (down, reconnecting, timed out, SQLite's write lock taken)
// gives 503 with Retry-After and a JSON error; a query the database refuses gives 500 with a JSON
// error. Each request really runs its queries: nothing is cached.
//
//   add_database_routes(router);
//   Server server(config, std::move(router), [&](core::EventLoop& loop, unsigned worker) {
//     return std::make_unique<DatabaseWorker>(open_database(loop), worker);
//   });
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "core/block_pool.hpp"
#include "core/free_list_pool.hpp"
#include "db/database.hpp"
#include "routes/database_call.hpp"
#include "server/router.hpp"
#include "server/worker_extension.hpp"

namespace ringside::routes {

void add_database_routes(server::Router& router);

// A worker's database and the pools of its database routes' calls.
class DatabaseWorker final : public server::WorkerExtension {
 public:
  DatabaseWorker(std::unique_ptr<db::Database> database, unsigned worker_index);
  ~DatabaseWorker() override;
  DatabaseWorker(const DatabaseWorker&) = delete;
  DatabaseWorker& operator=(const DatabaseWorker&) = delete;

  [[nodiscard]] db::Database& database() { return *database_; }
  [[nodiscard]] DatabaseCall& acquire(CallKind kind);
  void release(DatabaseCall& call);
  void release_block(char* block);
  // A World id in 1..10000, and a random number for a row (1..10000, never `old`).
  [[nodiscard]] std::int32_t random_world_id();
  [[nodiscard]] std::int32_t new_random_number(std::int32_t old);
  [[nodiscard]] std::size_t calls_in_use() const { return calls_.in_use(); }

  // core::LoopParticipant: the database is driven by the worker's loop.
  void after_events() override { database_->after_events(); }
  [[nodiscard]] core::TimePoint next_deadline() const override { return database_->next_deadline(); }
  void on_timer(core::TimePoint now) override { database_->on_timer(now); }

 private:
  [[nodiscard]] std::uint64_t next_random();

  std::unique_ptr<db::Database> database_;
  core::FreeListPool<DatabaseCall, &DatabaseCall::next_free> calls_;
  core::BlockPool blocks_{DatabaseCall::kBlockBytes, 256, 64};
  std::uint64_t random_state_;
};

}  // namespace ringside::routes
