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

#include <memory>
#include <utility>

#include "core/clock.hpp"
#include "db/database.hpp"
#include "routes/database_call.hpp"
#include "server/router.hpp"
#include "server/worker_extension.hpp"

namespace ringside::routes {

void add_database_routes(server::Router& router);

// A worker's database and the pools of its database routes' calls (DatabaseCalls), driven by the
// worker's loop.
class DatabaseWorker final : public server::WorkerExtension, public DatabaseCalls {
 public:
  DatabaseWorker(std::unique_ptr<db::Database> database, unsigned worker_index)
      : DatabaseCalls(std::move(database), worker_index) {}

  // core::LoopParticipant: the database is driven by the worker's loop.
  void after_events() override { database().after_events(); }
  [[nodiscard]] core::TimePoint next_deadline() const override { return database().next_deadline(); }
  void on_timer(core::TimePoint now) override { database().on_timer(now); }
};

}  // namespace ringside::routes
