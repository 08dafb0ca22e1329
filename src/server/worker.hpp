// A worker: one thread's event loop with its own listener (SO_REUSEPORT), connections, buffers
// and timers. Workers share nothing on the data path; the only shared value is the server's
// ConnectionSlots (--max-connections), touched once per accept and close.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>

#include "core/event_loop.hpp"
#include "core/free_list_pool.hpp"
#include "core/tls_context.hpp"
#include "core/waker.hpp"
#include "server/connection.hpp"
#include "server/connection_slots.hpp"
#include "server/h2_connection.hpp"
#include "server/worker_context.hpp"

namespace ringside::server {

class Worker final : private ConnectionOwner {
 public:
  // `tls_listen_fd` (-1: none) is the --tls-port listener, served with `tls`.
  Worker(const ServerConfig& config, const Router& router, int listen_fd, int tls_listen_fd,
         core::TlsContext* tls, ConnectionSlots& slots, const ExtensionFactory& extension_factory,
         unsigned index);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves until stopped; returns when every connection is closed. Throws std::system_error if
  // the event loop breaks (see EventLoop::run_once).
  void run();
  // Thread-safe. Drain: stop accepting, answer every further request with "Connection: close",
  // return once no connection is left or at the drain timeout (closing those still open).
  // Force: close everything now.
  void request_stop(bool force);
  // Blocks the HTTP/2 codec took from the heap so far (0 without HTTP/2); thread-safe.
  [[nodiscard]] std::uint64_t h2_heap_allocations() const {
    return h2_ ? h2_->memory.heap_allocations() : 0;
  }

 private:
  // A listening socket: --port's plain one, or --tls-port's.
  class Listener final : public core::IoHandler {
   public:
    Listener(Worker& worker, bool tls) : worker_(worker), tls_(tls) {}
    void on_io(core::IoEvents) override { worker_.accept_ready(*this); }

    int fd = -1;
    [[nodiscard]] bool tls() const { return tls_; }

   private:
    Worker& worker_;
    bool tls_;
  };

  void accept_ready(Listener& listener);
  void accept_queued(Listener& listener, std::size_t limit);
  void pause_accepting(bool at_capacity);
  void resume_accepting();
  void begin_drain();
  void close_all();
  void expire_timers();
  [[nodiscard]] core::Duration next_wait() const;
  Connection& new_connection();
  void release(Connection& connection) override;

  WorkerContext ctx_;
  // After ctx_, so destroyed before its pools: answers in flight give their replies back.
  std::unique_ptr<WorkerExtension> extension_;
  std::array<Listener, 2> listeners_{Listener{*this, false}, Listener{*this, true}};
  core::TlsContext* tls_;
  bool accepting_ = true;
  bool paused_at_capacity_ = false;
  core::TimePoint resume_at_{};
  core::TimePoint drain_deadline_{};
  ConnectionSlots& slots_;
  std::atomic<int> stop_request_{0};  // 0 run, 1 drain, 2 force
  core::Waker waker_;
  // Before connections_, so destroyed after them: an HTTP/2 connection's state lives here.
  std::unique_ptr<H2Resources> h2_;
  core::FreeListPool<Connection, &Connection::next_free> connections_;
};

}  // namespace ringside::server
