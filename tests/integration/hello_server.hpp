// The hello-world server on a free port with one worker, in-process, for C++ integration tests.
#pragma once

#include <memory>

#include "server/hello_routes.hpp"
#include "server/server.hpp"

namespace ringside::test_support {

inline std::unique_ptr<server::Server> start_hello_server() {
  server::ServerConfig config;
  config.port = 0;
  config.threads = 1;
  server::Router router;
  server::add_hello_routes(router);
  auto server = std::make_unique<server::Server>(config, std::move(router));
  server->start();
  return server;
}

}  // namespace ringside::test_support
