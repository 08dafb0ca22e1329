#include "server/server.hpp"

#include <unistd.h>

#include "core/socket.hpp"
#include "server/worker.hpp"

namespace ringside::server {

Server::Server(ServerConfig config, Router router)
    : config_(std::move(config)), router_(std::move(router)) {
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
      workers_.push_back(std::make_unique<Worker>(config_, router_, fd, open_connections_));
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
      w->run();
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
