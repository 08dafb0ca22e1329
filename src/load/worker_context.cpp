#include "load/worker_context.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ringside::load {

std::unique_ptr<core::TlsContext> make_tls_client(const LoadConfig& config, std::string& error) {
  if (!config.tls()) return nullptr;
  const Url& url = config.targets.front().url;
  core::TlsClientOptions options;
  options.ca_file = config.ca_file;
  options.server_name = tls_server_name(url);
  if (options.server_name.empty()) options.verify_ip = url.host;
  if (config.http2) options.alpn = {"h2"};  // h2 or nothing: no fallback to HTTP/1.1
  return core::TlsContext::make_client(options, error);
}

void WorkerContext::count_opened(const core::TlsLayer* tls, core::TimePoint connect_started,
                                 core::TimePoint now) {
  // connect: the TCP handshake alone; tls_handshake: from its end to the TLS handshake's.
  const core::TimePoint tcp_done = tls != nullptr ? tls->tcp_connected_at() : now;
  if (measuring(connect_started)) {
    stats_.connect.record(micros(tcp_done - connect_started));
    ++stats_.connections_opened;
    if (tls != nullptr) {
      stats_.tls_handshake.record(micros(now - tcp_done));
      ++stats_.tls.handshakes;
      stats_.tls.resumed += tls->resumed();
    }
  }
  // Once per worker (the strings allocate): what the first completed handshake agreed on.
  if (tls != nullptr && stats_.tls.version.empty()) {
    core::TlsSessionInfo info = tls->session_info();
    stats_.tls.version = std::move(info.version);
    stats_.tls.cipher = std::move(info.cipher);
    stats_.tls.group = std::move(info.group);
    stats_.tls.alpn = std::move(info.alpn);
  }
  if (tcp_done - connect_started >= kSlowConnect) ++stats_.slow_connects;
}

ResumeAccumulator::ResumeAccumulator(double ratio)
    : step_(!(ratio > 0)   ? 0  // NaN too
            : ratio >= 1 ? kWhole
                         : static_cast<std::uint32_t>(std::lround(ratio * kWhole))) {}

bool ResumeAccumulator::next() {
  credit_ += step_;
  if (credit_ < kWhole) return false;
  credit_ -= kWhole;
  return true;
}

WorkerContext::WorkerContext(const LoadConfig& cfg, const WorkerPlan& plan)
    : config(cfg),
      timeouts(core::seconds_to_duration(cfg.timeout_s)),
      plan_(plan),
      resume_(cfg.tls_resume),
      unclaimed_(plan.requests),
      target_cursor_(static_cast<std::uint32_t>(plan.first_connection % cfg.targets.size())) {
  if (config.tls()) {
    std::string error;
    tls_ = make_tls_client(config, error);
    if (!tls_) throw std::runtime_error(error);
    stats_.tls.used = true;
  }
  if (config.rate > 0) {
    send_interval = core::seconds_to_duration(config.connections / config.rate);
  }
  std::vector<Due> storage;
  storage.reserve(plan.connections + 1);
  due_ = decltype(due_)(std::greater<>{}, std::move(storage));
  if (config.latency_per_second) stats_.latency_seconds.enable(stats_.latency);
  if (plan.end) stats_.per_second.reserve(static_cast<std::size_t>(std::min<core::Duration>(*plan.end - plan.measure_from, std::chrono::hours(1)) / std::chrono::seconds(1)) + 2);  // -d 30d: grows
}

WorkerContext::Claim WorkerContext::claim(ScheduledSender& sender, core::TimePoint now) {
  if (!may_start_more(now)) return {};
  core::TimePoint intended = now;
  if (config.rate > 0) {
    if (sender.next_send() > now) {
      schedule_due(sender);
      return {};
    }
    intended = sender.next_send();
  }
  if (idle(intended)) {
    // --start-at: between the warm-up and the instant. The connection's schedule starts over at
    // the instant (with its -R stagger), so the measured phase opens as a run without warm-up.
    sender.restart_schedule(plan_.measure_from);
    schedule_due(sender);
    return {};
  }
  const bool measured = measuring(intended);
  if (measured) {
    if (plan_.requests > 0) --unclaimed_;
    ++stats_.started;
  } else {
    ++stats_.warmup_requests;
  }
  return {true, intended, measured};
}

bool WorkerContext::may_start_more(core::TimePoint now) const {
  if (stopping_) return false;
  if (plan_.end && now >= *plan_.end) return false;
  if (plan_.requests > 0 && unclaimed_ == 0 && measuring(now)) return false;
  return true;
}

void WorkerContext::schedule_due(ScheduledSender& sender) {
  if (sender.due_queued) return;
  sender.due_queued = true;
  due_.push({sender.next_send(), &sender});
}

std::size_t WorkerContext::second_of(core::TimePoint t) const {
  if (t < plan_.measure_from) return 0;
  return static_cast<std::size_t>((t - plan_.measure_from) / std::chrono::seconds(1));
}

std::uint64_t WorkerContext::micros(core::Duration d) const {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  return us < 1 ? 1 : static_cast<std::uint64_t>(us);
}

}  // namespace ringside::load
