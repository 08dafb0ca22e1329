// The HTTP server: binds one SO_REUSEPORT listener per worker and runs each worker on its own
// thread. Used by `ringside serve` and, in-process, by tests and the harness.
//
//   Server server(config, router);   // binds now; throws std::system_error naming the address
//                                    // (std::invalid_argument for a bad setting or certificate)
//   server.start();                  // server.port() says where
//   server.stop(/*force=*/false);    // graceful drain, from any thread
//   server.wait();
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/tls_context.hpp"
#include "server/config.hpp"
#include "server/connection_slots.hpp"
#include "server/router.hpp"
#include "server/worker_extension.hpp"

namespace ringside::server {

class Worker;

class Server {
 public:
  // `extension_factory` (optional) makes each worker's WorkerExtension, on this thread.
  Server(ServerConfig config, Router router, ExtensionFactory extension_factory = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // The TLS listener's port, and its certificate (nullptr without --tls-port).
  [[nodiscard]] std::uint16_t tls_port() const { return tls_port_; }
  [[nodiscard]] const core::TlsContext* tls() const { return tls_.get(); }
  // With --ktls: "" when the kernel sends for TLS 1.3 connections, else why it cannot.
  [[nodiscard]] const std::string& ktls_unavailable() const { return ktls_unavailable_; }
  [[nodiscard]] const ServerConfig& config() const { return config_; }
  void start();
  void stop(bool force);
  void wait();
  [[nodiscard]] bool finished() const { return running_.load() == 0; }
  // Blocks every worker's HTTP/2 codec took from the heap so far (a no-allocation test watches it:
  // the codec's steady state recycles its memory). Thread-safe.
  [[nodiscard]] std::uint64_t h2_heap_allocations() const;

 private:
  ServerConfig config_;
  Router router_;
  std::uint16_t port_ = 0;
  std::uint16_t tls_port_ = 0;
  std::unique_ptr<core::TlsContext> tls_;  // shared by the workers: before them, outlives them
  std::string ktls_unavailable_;
  ConnectionSlots connection_slots_;
  std::atomic<unsigned> running_{0};
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace ringside::server
