#include "server/worker.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>

#include "core/socket.hpp"

namespace ringside::server {
namespace {

constexpr std::size_t kAcceptsPerWakeup = 64;
constexpr auto kAcceptPause = std::chrono::milliseconds(100);
constexpr auto kMaxWait = std::chrono::seconds(1);
constexpr auto kShortageLogInterval = std::chrono::seconds(1);

const char* errno_name(int error) {
  switch (error) {
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENOBUFS: return "ENOBUFS";
    case ENOMEM: return "ENOMEM";
    default: return "?";
  }
}

// Out of descriptors (or kernel memory), every worker retries accept() each kAcceptPause for as
// long as the shortage lasts. One line a second at most for the whole process, not per worker,
// counting the repeats it stands for: the log says what happened without flooding. This and
// ConnectionSlots are all that workers share, and this only on the error path.
class ShortageLog {
 public:
  void report(int error, core::TimePoint now) {
    using Ticks = core::Duration::rep;
    const Ticks ticks = now.time_since_epoch().count();
    Ticks next = next_line_.load(std::memory_order_relaxed);
    const Ticks after = ticks + core::Duration(kShortageLogInterval).count();
    if (ticks < next || !next_line_.compare_exchange_strong(next, after)) {
      repeats_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    char repeated[64] = "";
    if (const std::uint64_t repeats = repeats_.exchange(0); repeats > 0) {
      std::snprintf(repeated, sizeof repeated, ", %llu more times since the last such line",
                    static_cast<unsigned long long>(repeats));
    }
    std::fprintf(stderr,
                 "ringside serve: warning: cannot accept connections: %s (%s)%s; open connections "
                 "are still served and new ones wait in the listen queue: raise 'ulimit -n' or "
                 "lower --max-connections\n",
                 std::strerror(error), errno_name(error), repeated);
  }

 private:
  std::atomic<core::Duration::rep> next_line_{std::numeric_limits<core::Duration::rep>::min()};
  std::atomic<std::uint64_t> repeats_{0};
};

ShortageLog shortage_log;

}  // namespace

Worker::Worker(const ServerConfig& config, const Router& router, int listen_fd, int tls_listen_fd,
               core::TlsContext* tls, ConnectionSlots& slots,
               const ExtensionFactory& extension_factory, unsigned index)
    : ctx_(config, router),
      extension_(extension_factory ? extension_factory(ctx_.loop, index) : nullptr),
      tls_(tls),
      slots_(slots),
      waker_(ctx_.loop, [] {}) {
  ctx_.owner = this;
  ctx_.extension = extension_.get();
  if (config.http2) {
    H2Limits limits;
    limits.max_concurrent_streams = config.h2_max_streams;
    limits.max_header_list = config.h2_max_header_list;
    limits.initial_window = config.h2_initial_window;
    limits.reset_burst = config.h2_reset_burst;
    limits.reset_rate = config.h2_reset_rate;
    h2_ = std::make_unique<H2Resources>(limits, config.h2_nghttp2_codec);
    ctx_.h2 = h2_.get();
  }
  listeners_[0].fd = listen_fd;
  listeners_[1].fd = tls_listen_fd;
  for (Listener& listener : listeners_) {
    if (listener.fd >= 0 && !ctx_.loop.watch(listener.fd, core::kReadable, &listener)) {
      throw std::system_error(errno, std::generic_category(), "epoll_ctl(listener)");
    }
  }
}

Worker::~Worker() {
  close_all();
  extension_.reset();  // before ctx_'s pools, which its answers in flight give back to
  for (Listener& listener : listeners_) {
    if (listener.fd >= 0) ::close(listener.fd);
  }
}

void Worker::request_stop(bool force) {
  int wanted = force ? 2 : 1;
  int current = stop_request_.load();
  while (current < wanted && !stop_request_.compare_exchange_weak(current, wanted)) {
  }
  waker_.wake();
}

void Worker::run() {
  while (true) {
    int stop = stop_request_.load(std::memory_order_acquire);
    if (stop == 2) break;
    if (stop == 1 && !ctx_.draining) begin_drain();
    if (ctx_.draining && (ctx_.open_connections == 0 || ctx_.loop.now() >= drain_deadline_)) break;
    ctx_.loop.run_once(next_wait());
    ctx_.date.update(std::time(nullptr));
    expire_timers();
    if (extension_) {
      extension_->on_timer(ctx_.loop.now());
      extension_->after_events();
    }
    if (!accepting_ && !ctx_.draining && ctx_.loop.now() >= resume_at_) resume_accepting();
  }
  close_all();
}

core::Duration Worker::next_wait() const {
  const core::TimePoint now = ctx_.loop.now();
  core::TimePoint until = now + kMaxWait;
  for (const core::TimerList* list :
       {&ctx_.header_timers, &ctx_.idle_timers, &ctx_.linger_timers}) {
    if (!list->empty()) until = std::min(until, list->next_deadline());
  }
  if (!accepting_ && !ctx_.draining) until = std::min(until, resume_at_);
  if (extension_) until = std::min(until, extension_->next_deadline());
  if (ctx_.draining) until = std::min(until, drain_deadline_);
  return std::max(until - now, core::Duration::zero());
}

void Worker::expire_timers() {
  auto fire = [](core::TimerNode& node) { static_cast<Connection&>(node).on_timeout(); };
  const core::TimePoint now = ctx_.loop.now();
  ctx_.header_timers.expire(now, fire);
  ctx_.idle_timers.expire(now, fire);
  ctx_.linger_timers.expire(now, fire);
}

void Worker::accept_ready(Listener& listener) { accept_queued(listener, kAcceptsPerWakeup); }

// Accepts up to `limit` queued connections. Stops early when the queue is empty, when every
// --max-connections slot is taken, or when descriptors run out (both pause accepting).
void Worker::accept_queued(Listener& listener, std::size_t limit) {
  for (std::size_t i = 0; i < limit; ++i) {
    // The slot is taken before accept() and given back if nothing was accepted, so that workers
    // racing for the last slot cannot both pass the cap. (Another worker may then see the cap
    // reached for a moment and pause; it resumes at its next close or after kAcceptPause.)
    if (!slots_.try_reserve()) {
      pause_accepting(true);
      return;
    }
    int fd = core::accept_nonblocking(listener.fd);
    if (fd < 0) {
      const int error = errno;
      slots_.release();
      if (error == EINTR || error == ECONNABORTED) continue;
      if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
        // Out of descriptors: keep serving the open connections and try again shortly.
        shortage_log.report(error, ctx_.loop.now());
        pause_accepting(false);
      }
      return;
    }
    ++ctx_.open_connections;
    Connection& connection = new_connection();
    connection.open(fd, ctx_, listener.tls() ? tls_ : nullptr);
  }
}

void Worker::pause_accepting(bool at_capacity) {
  if (accepting_) {
    for (Listener& listener : listeners_) {
      if (listener.fd >= 0) ctx_.loop.unwatch(listener.fd);
    }
  }
  accepting_ = false;
  paused_at_capacity_ = at_capacity;
  resume_at_ = ctx_.loop.now() + kAcceptPause;
}

void Worker::resume_accepting() {
  if (accepting_ || listeners_[0].fd < 0) return;
  bool watched = true;
  for (Listener& listener : listeners_) {
    if (listener.fd >= 0 && !ctx_.loop.watch(listener.fd, core::kReadable, &listener)) {
      watched = false;
    }
  }
  if (watched) {
    accepting_ = true;
    return;
  }
  for (Listener& listener : listeners_) {
    if (listener.fd >= 0) ctx_.loop.unwatch(listener.fd);
  }
  resume_at_ = ctx_.loop.now() + kAcceptPause;
}

void Worker::begin_drain() {
  ctx_.draining = true;
  drain_deadline_ = ctx_.loop.now() + core::seconds_to_duration(ctx_.config.drain_timeout_s);
  // Take every connection already queued (up to the cap), not one wakeup's worth: closing a
  // listener resets whatever is still in its queue, and those clients may have sent a request.
  for (Listener& listener : listeners_) {
    if (listener.fd >= 0) accept_queued(listener, std::numeric_limits<std::size_t>::max());
  }
  for (Listener& listener : listeners_) {
    if (listener.fd < 0) continue;
    if (accepting_) ctx_.loop.unwatch(listener.fd);
    ::close(listener.fd);
    listener.fd = -1;
  }
  accepting_ = false;
  // Idle keep-alive connections are not closed now: a client may be sending its next request
  // this very moment, and a close racing with it loses that request (the client sees a reset or
  // an early close after writing it, and cannot know whether it was processed). Each connection
  // instead ends with its next answer, which says "Connection: close" (keep_alive() is false
  // from here on); only those still idle at the drain deadline are closed, in run().
}

void Worker::close_all() {
  for (Connection& connection : connections_) connection.close();
}

Connection& Worker::new_connection() { return connections_.acquire(); }

void Worker::release(Connection& connection) {
  connections_.release(connection);
  --ctx_.open_connections;
  slots_.release();
  if (!accepting_ && paused_at_capacity_ && !ctx_.draining) resume_accepting();
}

}  // namespace ringside::server
