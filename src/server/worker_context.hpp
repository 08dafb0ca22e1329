// What a worker's connections share: the loop, buffers, timers and counters of one thread.
// Nothing in here is touched by another thread. Its ReplyContext part (server/pending_reply.hpp)
// is what parked requests are answered with.
#pragma once

#include <array>
#include <cstddef>

#include "core/block_pool.hpp"
#include "core/event_loop.hpp"
#include "core/timer_list.hpp"
#include "http/out_buffer.hpp"
#include "http/request.hpp"
#include "server/config.hpp"
#include "server/pending_reply.hpp"
#include "server/reply.hpp"
#include "server/worker_extension.hpp"

namespace ringside::server {

class Connection;
class Router;
struct H2Resources;

// The worker takes a connection back when it closes.
class ConnectionOwner {
 public:
  virtual void release(Connection& connection) = 0;

 protected:
  ~ConnectionOwner() = default;
};

enum class TimerKind : std::uint8_t { kNone, kHeader, kIdle, kLinger };

struct WorkerContext : ReplyContext {
  static constexpr std::size_t kReadBytes = 16 * 1024;   // one recv; also the partial-input block
  static constexpr std::size_t kBatchBytes = 64 * 1024;  // responses gathered for one send
  static constexpr core::Duration kLingerTime = std::chrono::seconds(2);

  WorkerContext(const ServerConfig& cfg, const Router& rt)
      : config(cfg),
        router(rt),
        header_timers(core::seconds_to_duration(cfg.header_timeout_s)),
        idle_timers(core::seconds_to_duration(cfg.idle_timeout_s)) {}

  core::TimerList& timers(TimerKind kind) {
    switch (kind) {
      case TimerKind::kHeader: return header_timers;
      case TimerKind::kLinger: return linger_timers;
      default: return idle_timers;
    }
  }

  const ServerConfig& config;
  const Router& router;
  core::EventLoop loop;
  // Reserved blocks cost address space only until first written (see BlockPool).
  core::BlockPool input_blocks{kReadBytes, 256, 64};
  core::BlockPool output_blocks{kBatchBytes, 64, 16};
  core::TimerList header_timers;
  core::TimerList idle_timers;
  core::TimerList linger_timers{kLingerTime};
  http::Request request;  // scratch for the parser: one request is parsed at a time per thread
  std::array<char, kReadBytes> read_buffer;
  std::array<char, kBatchBytes> batch_buffer;
  std::array<char, kMaxReplyBody> body_scratch;  // Exchange::body(): a body built and sent now
  http::OutBuffer body_scratch_buffer{body_scratch.data(), body_scratch.size()};
  ConnectionOwner* owner = nullptr;
  WorkerExtension* extension = nullptr;  // the routes' per-worker state, if the server has any
  H2Resources* h2 = nullptr;             // when the server speaks HTTP/2 (server/h2_connection.hpp)
  std::size_t open_connections = 0;
};

}  // namespace ringside::server
