// The hello-world server on a free port with one worker, in-process, for C++ integration tests.
#pragma once

#include <memory>

#include "server/hello_routes.hpp"
#include "server/server.hpp"

namespace ringside::test_support {

// With `tls`, also a TLS listener (server->tls_port()) with a certificate made at start.
inline std::unique_ptr<server::Server> start_hello_server(bool tls = false) {
  server::ServerConfig config;
  config.port = 0;
  config.threads = 1;
  config.tls = tls;
  config.tls_port = 0;
  config.tls_self_signed = tls;
  server::Router router;
  server::add_hello_routes(router);
  auto server = std::make_unique<server::Server>(config, std::move(router));
  server->start();
  return server;
}

}  // namespace ringside::test_support
