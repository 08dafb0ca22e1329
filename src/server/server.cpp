#include "server/server.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/socket.hpp"
#include "server/worker.hpp"

namespace ringside::server {

Server::Server(ServerConfig config, Router router)
    : config_(std::move(config)),
      router_(std::move(router)),
      connection_slots_(config_.max_connections) {
  core::ListenOptions options;
  options.host = config_.host;
  options.port = config_.port;
  std::vector<int> listeners;
  try {
    for (unsigned i = 0; i < config_.threads; ++i) {
      listeners.push_back(core::listen_tcp(options));
      if (i == 0) {
        options.port = port_ = core::local_port(listeners[0]);
        options.join_group = true;
      }
    }
    for (int fd : listeners) {
      workers_.push_back(std::make_unique<Worker>(config_, router_, fd, connection_slots_));
    }
  } catch (...) {
    for (std::size_t i = workers_.size(); i < listeners.size(); ++i) ::close(listeners[i]);
    throw;
  }
}

Server::~Server() {
  stop(true);
  wait();
}

void Server::start() {
  running_ = static_cast<unsigned>(workers_.size());
  for (auto& worker : workers_) {
    threads_.emplace_back([this, w = worker.get()] {
      try {
        w->run();
      } catch (const std::exception& e) {
        // Only a broken event loop gets here (EventLoop::run_once throws). A server with a worker
        // gone would keep accepting on the others and leave that listener's queue unanswered:
        // stop loudly, naming the cause, rather than serve on in part.
        std::fprintf(stderr, "ringside: a server worker stopped: %s\n", e.what());
        std::abort();
      }
      running_.fetch_sub(1);
    });
  }
}

void Server::stop(bool force) {
  for (auto& worker : workers_) worker->request_stop(force);
}

void Server::wait() {
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

}  // namespace ringside::server
