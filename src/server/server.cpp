#include "server/server.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "core/ktls.hpp"
#include "core/socket.hpp"
#include "server/worker.hpp"

namespace ringside::server {
namespace {

bool in_range(double value, double low, double high) { return value >= low && value <= high; }

const ServerConfig& checked(const ServerConfig& config) {
  if (std::string problem = validate(config); !problem.empty()) throw std::invalid_argument(problem);
  return config;
}

}  // namespace

std::string validate(const ServerConfig& config) {
  if (config.threads == 0 || config.threads > kMaxThreads) {
    return "threads must be from 1 to " + std::to_string(kMaxThreads);
  }
  if (config.max_connections == 0 || config.max_connections > kMaxConnections) {
    return "max_connections must be from 1 to " + std::to_string(kMaxConnections);
  }
  if (!in_range(config.header_timeout_s, kMinTimeoutS, kMaxHeaderTimeoutS)) {
    return "header_timeout_s must be from 0.001 to 3600 seconds";
  }
  if (!in_range(config.idle_timeout_s, kMinTimeoutS, kMaxIdleTimeoutS)) {
    return "idle_timeout_s must be from 0.001 to 86400 seconds";
  }
  if (!in_range(config.drain_timeout_s, 0, kMaxDrainTimeoutS)) {
    return "drain_timeout_s must be from 0 to 3600 seconds";
  }
  if (config.max_body > kMaxBodyLimit) return "max_body must be at most 1 TiB";
  if (config.tls && !config.tls_self_signed && (config.tls_cert.empty() || config.tls_key.empty())) {
    return "tls_port needs tls_cert and tls_key (PEM files), or tls_self_signed";
  }
  if (!config.tls && (config.tls_self_signed || !config.tls_cert.empty() || !config.tls_key.empty())) {
    return "tls_cert, tls_key and tls_self_signed need tls_port (where the TLS listener goes)";
  }
  if (config.ktls && !config.tls) {
    return "ktls needs tls_port: kernel TLS is for the TLS listener's connections";
  }
  if (config.h2_max_streams == 0 || config.h2_max_streams > kMaxH2Streams) {
    return "h2_max_streams must be from 1 to " + std::to_string(kMaxH2Streams);
  }
  if (config.h2_max_header_list < kMinH2HeaderList ||
      config.h2_max_header_list > kMaxH2HeaderList) {
    return "h2_max_header_list must be from 1024 to 65535 bytes";
  }
  if (config.h2_initial_window == 0 || config.h2_initial_window > kMaxH2Window) {
    return "h2_initial_window must be from 1 to 2147483647 bytes";
  }
  if (config.h2_reset_burst == 0 || config.h2_reset_rate == 0) {
    return "h2_reset_burst and h2_reset_rate must be at least 1";
  }
  return "";
}

Server::Server(ServerConfig config, Router router, ExtensionFactory extension_factory)
    : config_(checked(config)),
      router_(std::move(router)),
      connection_slots_(config_.max_connections) {
  if (config_.tls) {
    core::TlsServerOptions tls_options;
    tls_options.cert_file = config_.tls_cert;
    tls_options.key_file = config_.tls_key;
    // HTTP/2 first when both sides speak it (RFC 9113 section 3.2), else HTTP/1.1.
    if (config_.http2) tls_options.alpn = {"h2", "http/1.1"};
    tls_options.self_signed = config_.tls_self_signed;
    std::string error;
    tls_ = core::TlsContext::make_server(tls_options, error);
    if (!tls_) throw std::invalid_argument(error);
    if (config_.ktls) {
      ktls_unavailable_ = core::probe_kernel_tls();
      if (ktls_unavailable_.empty()) tls_->enable_kernel_tls(core::KernelTls::linux_kernel());
    }
  }
  core::ListenOptions options;
  options.host = config_.host;
  options.port = config_.port;
  options.share_port = config_.share_port;
  core::ListenOptions tls_listen = options;
  tls_listen.port = config_.tls_port;
  std::vector<int> listeners;
  std::vector<int> tls_listeners;
  auto close_unowned = [&] {
    for (std::size_t i = workers_.size(); i < listeners.size(); ++i) ::close(listeners[i]);
    for (std::size_t i = workers_.size(); i < tls_listeners.size(); ++i) ::close(tls_listeners[i]);
  };
  try {
    for (unsigned i = 0; i < config_.threads; ++i) {
      listeners.push_back(core::listen_tcp(options));
      if (config_.tls) tls_listeners.push_back(core::listen_tcp(tls_listen));
      if (i == 0) {
        options.port = port_ = core::local_port(listeners[0]);
        options.join_group = true;
        if (config_.tls) {
          tls_listen.port = tls_port_ = core::local_port(tls_listeners[0]);
          tls_listen.join_group = true;
        }
      }
    }
    for (std::size_t i = 0; i < listeners.size(); ++i) {
      const auto index = static_cast<unsigned>(workers_.size());
      const int tls_fd = config_.tls ? tls_listeners[i] : -1;
      workers_.push_back(std::make_unique<Worker>(config_, router_, listeners[i], tls_fd,
                                                  tls_.get(), connection_slots_,
                                                  extension_factory, index));
    }
  } catch (...) {
    close_unowned();
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

std::uint64_t Server::h2_heap_allocations() const {
  std::uint64_t total = 0;
  for (const auto& worker : workers_) total += worker->h2_heap_allocations();
  return total;
}

}  // namespace ringside::server
