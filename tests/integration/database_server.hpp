// A server with the hello and database routes on a free port, one worker, in-process, for C++
// integration tests; `open` makes the worker's database on its loop.
//
//   auto server = test_support::start_database_server([&](core::EventLoop& loop) {
//     return db::open_sqlite_database(path, 5, loop);
//   });
#pragma once

#include <functional>
#include <memory>

#include "db/database.hpp"
#include "routes/database_routes.hpp"
#include "server/hello_routes.hpp"
#include "server/server.hpp"

namespace ringside::test_support {

using OpenDatabase = std::function<std::unique_ptr<db::Database>(core::EventLoop& loop)>;

inline std::unique_ptr<server::Server> start_database_server(OpenDatabase open) {
  server::ServerConfig config;
  config.port = 0;
  config.threads = 1;
  server::Router router;
  server::add_hello_routes(router);
  routes::add_database_routes(router);
  auto server = std::make_unique<server::Server>(
      config, std::move(router),
      [open = std::move(open)](core::EventLoop& loop,
                               unsigned worker) -> std::unique_ptr<server::WorkerExtension> {
        return std::make_unique<routes::DatabaseWorker>(open(loop), worker);
      });
  server->start();
  return server;
}

}  // namespace ringside::test_support
