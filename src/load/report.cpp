#include "load/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "load/hdr_log.hpp"
#include "load/resolve_url.hpp"

namespace ringside::load {
namespace {

std::string mode_text(const LoadConfig& c) {
  std::string mode;
  if (c.requests > 0) mode = fmt::format("{} requests", c.requests);
  if (c.effective_duration_s() > 0) {
    mode += fmt::format("{}{}s duration", mode.empty() ? "" : ", at most ", c.effective_duration_s());
  }
  if (c.rate > 0) mode += fmt::format(", constant rate {} req/s", c.rate);
  if (c.warmup_s > 0) mode += fmt::format(" (after a {}s warm-up, excluded)", c.warmup_s);
  return mode;
}

void append_connection_times(std::string& out, const Stats& s) {
  auto row = [&](const char* name, const Histogram& h) {
    if (h.count() == 0) return;
    out += fmt::format("  {:<9}{:>8.2f} {:>8.2f} {:>7.2f} {:>8.2f} {:>9.2f}\n", name,
                       h.min() / 1000.0, h.mean() / 1000.0, h.stdev() / 1000.0,
                       h.value_at_percentile(50) / 1000.0, h.max() / 1000.0);
  };
  out += "Connection times (ms)\n";
  out += fmt::format("  {:<9}{:>8} {:>8} {:>7} {:>8} {:>9}\n", "", "min", "mean", "[+/-sd]", "median", "max");
  row("Connect:", s.connect);
  row("TLS:", s.tls_handshake);
  row("Waiting:", s.waiting);
  row("Total:", s.latency_uncorrected);
}

// "TLSv1.3, TLS_AES_256_GCM_SHA384, x25519, ALPN http/1.1; 300 handshakes, 145 resumed (48.3%)"
std::string tls_line(const TlsSummary& tls) {
  std::string line = "TLS           ";
  if (tls.version.empty()) {
    line += "no handshake completed";
  } else {
    line += fmt::format("{}, {}, {}, ALPN {}", tls.version, tls.cipher,
                        tls.group.empty() ? "group unknown" : tls.group,
                        tls.alpn.empty() ? "none" : tls.alpn);
  }
  line += fmt::format("; {} handshakes, {} resumed", tls.handshakes, tls.resumed);
  if (tls.handshakes > 0) line += fmt::format(" ({:.1f}%)", 100.0 * tls.resumed / tls.handshakes);
  return line + "\n";
}

nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

}  // namespace

nlohmann::ordered_json tls_json(const TlsSummary& tls) {
  if (!tls.used) return nullptr;
  return {{"version", text_or_null(tls.version)}, {"cipher", text_or_null(tls.cipher)},
          {"group", text_or_null(tls.group)},     {"alpn", text_or_null(tls.alpn)},
          {"handshakes", tls.handshakes},         {"resumed", tls.resumed}};
}

nlohmann::ordered_json histogram_json(const Histogram& h) {
  nlohmann::ordered_json out;
  out["count"] = h.count();
  out["min"] = h.min();
  out["mean"] = h.mean();
  out["stdev"] = h.stdev();
  out["max"] = h.max();
  nlohmann::ordered_json percentiles;
  for (double p : kReportPercentiles) percentiles[fmt::format("{}", p)] = h.value_at_percentile(p);
  out["percentiles"] = percentiles;
  out["hdr"] = encode_compressed(h);
  out["lowest"] = h.lowest_trackable();
  out["highest"] = h.highest_trackable();
  out["digits"] = h.significant_digits();
  return out;
}

std::string format_micros(double micros) {
  // Compared after rounding as printed: 999.7 us is "1.00ms", not "1000us".
  if (micros < 999.5) return fmt::format("{:.0f}us", micros);
  if (micros < 999'995) return fmt::format("{:.2f}ms", micros / 1e3);
  return fmt::format("{:.2f}s", micros / 1e6);
}

RateSummary summarize_rates(const LoadResult& result) {
  RateSummary rates;
  if (result.elapsed_s > 0) rates.overall = result.stats.completed / result.elapsed_s;
  // Whole seconds only: the last, partial second would drag the mean down.
  std::size_t whole = static_cast<std::size_t>(result.elapsed_s);
  const auto& per_second = result.stats.per_second;
  std::size_t n = std::min(whole, per_second.size());
  if (n == 0) {
    rates.mean = rates.max = rates.overall;
    return rates;
  }
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += per_second[i];
    rates.max = std::max(rates.max, static_cast<double>(per_second[i]));
  }
  rates.mean = sum / n;
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) squares += (per_second[i] - rates.mean) * (per_second[i] - rates.mean);
  rates.stdev = std::sqrt(squares / n);
  return rates;
}

std::string format_text(const LoadResult& r) {
  const LoadConfig& c = r.config;
  const Stats& s = r.stats;
  std::string out;
  out += fmt::format("ringside load  {} {}{}\n", c.targets.front().method, url_text(c.targets.front().url),
                     c.targets.size() > 1 ? fmt::format(" (+{} more URLs, round-robin)", c.targets.size() - 1) : "");
  const std::string in_flight =
      c.http2 ? fmt::format("{}, {} streams per connection", c.protocol(), c.streams)
              : fmt::format("pipeline {}", c.pipeline);
  out += fmt::format("  {} connections, {} threads, {}, {}, {}\n", c.connections, c.threads,
                     c.keep_alive ? "keep-alive" : "a new connection per request", in_flight,
                     mode_text(c));
  if (!c.tag.empty()) out += fmt::format("  tag {}\n", c.tag);
  if (r.intended_start_epoch_s && r.start_late_s) {
    out += fmt::format("  --start-at {:.3f}: began at {:.6f}, {:.3f} ms after the instant\n",
                       *r.intended_start_epoch_s, r.start_epoch_s, *r.start_late_s * 1e3);
  }
  if (r.interrupted) out += "  interrupted: these are the numbers measured until the stop\n";
  out += "\n";
  const RateSummary rates = summarize_rates(r);
  out += fmt::format("Requests      {} completed, {} failed, {} in flight at the stop ({} started)\n",
                     s.completed, s.errored, s.in_flight, s.started);
  out += fmt::format("Conservation  started {} = completed {} + failed {} + in flight {}: {}\n",
                     s.started, s.completed, s.errored, s.in_flight,
                     s.started == s.completed + s.errored + s.in_flight ? "holds" : "BROKEN");
  out += fmt::format("Elapsed       {:.2f} s\n", r.elapsed_s);
  out += fmt::format("Requests/s    {:.2f}   per second: avg {:.2f}  stdev {:.2f}  max {:.2f}\n",
                     rates.overall, rates.mean, rates.stdev, rates.max);
  const double seconds = r.elapsed_s > 0 ? r.elapsed_s : 1;
  out += fmt::format("Throughput    read {:.2f} MB/s, written {:.2f} MB/s\n",
                     s.bytes_read / seconds / 1e6, s.bytes_written / seconds / 1e6);
  out += "\n";
  return out + format_details(r);
}

std::string format_details(const LoadResult& r) {
  const LoadConfig& c = r.config;
  const Stats& s = r.stats;
  std::string out;
  if (s.tls.used) out += tls_line(s.tls) + "\n";
  const bool corrected = c.rate > 0;
  const Histogram& lat = s.latency;
  const Histogram& raw = s.latency_uncorrected;
  if (lat.count() > 0) {
    out += corrected ? "Latency       corrected (from the intended send time) | uncorrected\n"
                     : "Latency\n";
    auto line = [&](const char* name, double a, double b) {
      out += corrected ? fmt::format("  {:<10}{:>10} | {:>10}\n", name, format_micros(a), format_micros(b))
                       : fmt::format("  {:<10}{:>10}\n", name, format_micros(a));
    };
    line("min", lat.min(), raw.min());
    line("mean", lat.mean(), raw.mean());
    line("stdev", lat.stdev(), raw.stdev());
    line("max", lat.max(), raw.max());
    for (double p : kReportPercentiles) {
      std::string name = fmt::format("{}%", p);
      line(name.c_str(), lat.value_at_percentile(p), raw.value_at_percentile(p));
    }
    out += "\n";
  }
  out += "Status codes ";
  bool any = false;
  for (int hundreds = 1; hundreds <= 5; ++hundreds) {
    std::uint64_t n = s.status_class(hundreds);
    if (n == 0) continue;
    out += fmt::format(" {}xx {} (", hundreds, n);
    bool first = true;
    for (int code = hundreds * 100; code < hundreds * 100 + 100; ++code) {
      if (s.status[code] == 0) continue;
      out += fmt::format("{}{}: {}", first ? "" : ", ", code, s.status[code]);
      first = false;
    }
    out += ")";
    any = true;
  }
  out += any ? "\n" : " none\n";
  out += "Errors       ";
  any = false;
  for (std::size_t i = 0; i < kErrorClasses; ++i) {
    if (s.errors[i] == 0) continue;
    out += fmt::format(" {} {}", error_key(static_cast<ErrorClass>(i)), s.errors[i]);
    any = true;
  }
  if (s.connect_failures > 0) out += fmt::format(" (and {} failed connects with no request waiting)", s.connect_failures);
  out += any || s.connect_failures > 0 ? "\n" : " none\n";
  out += "\n";
  append_connection_times(out, s);
  return out;
}

nlohmann::ordered_json config_json(const LoadConfig& c) {
  nlohmann::ordered_json config;
  nlohmann::ordered_json urls = nlohmann::ordered_json::array();
  for (const Target& t : c.targets) urls.push_back(url_text(t.url));
  config["urls"] = urls;
  config["method"] = c.targets.front().method;
  config["connections"] = c.connections;
  config["threads"] = c.threads;
  config["requests"] = c.requests;
  config["duration_s"] = c.effective_duration_s();
  config["rate"] = c.rate;
  config["pipeline"] = c.pipeline;
  config["protocol"] = c.protocol();
  if (c.http2) config["streams"] = c.streams;
  config["keep_alive"] = c.keep_alive;
  config["timeout_s"] = c.timeout_s;
  config["warmup_s"] = c.warmup_s;
  if (c.share) config["share"] = {{"index", c.share->index}, {"of", c.share->of}};
  if (c.tls()) {
    config["tls_resume"] = c.tls_resume;
    config["cacert"] = text_or_null(c.ca_file);
  }
  // Only when the URLs name a host (they all share one, load_run's validate): what it resolved to.
  if (const Url& url = c.targets.front().url; !url.resolved.empty()) {
    nlohmann::ordered_json addresses = nlohmann::ordered_json::array();
    for (const core::SocketAddress& address : url.resolved) addresses.push_back(core::address_text(address));
    config["resolved"][url.host] = {{"addresses", addresses}, {"used", used_address_text(url)}};
  }
  return config;
}

nlohmann::ordered_json to_json(const LoadResult& r) {
  nlohmann::ordered_json j = to_json(r, config_json(r.config));
  // Little's law's L, measured: requests outstanding on average over the run, and per connection
  // (a closed loop that keeps every connection busy holds it at --pipeline, or --streams). A
  // load's own document only: a merge has no such integral.
  const double mean_in_flight = r.elapsed_s > 0 ? r.stats.outstanding_s / r.elapsed_s : 0;
  j["in_flight_mean"] = {{"total", mean_in_flight},
                         {"per_connection", mean_in_flight / std::max(1U, r.config.connections)}};
  return j;
}

nlohmann::ordered_json to_json(const LoadResult& r, nlohmann::ordered_json config) {
  const LoadConfig& c = r.config;
  const Stats& s = r.stats;
  nlohmann::ordered_json j;
  j["schema"] = kJsonSchemaVersion;
  j["tool"] = "ringside load";
  j["tag"] = c.tag.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.tag);
  j["config"] = std::move(config);
  j["interrupted"] = r.interrupted;
  j["start_epoch_s"] = r.start_epoch_s;
  auto number_or_null = [](const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  j["intended_start_epoch_s"] = number_or_null(r.intended_start_epoch_s);
  j["start_late_s"] = number_or_null(r.start_late_s);
  j["elapsed_s"] = r.elapsed_s;
  j["loader"] = {{"cpu_s", r.cpu_s}, {"threads", r.threads}};
  j["requests"] = {{"started", s.started}, {"completed", s.completed}, {"failed", s.errored},
                   {"in_flight", s.in_flight}, {"warmup", s.warmup_requests}};
  const RateSummary rates = summarize_rates(r);
  j["requests_per_s"] = {{"overall", rates.overall}, {"per_second_mean", rates.mean},
                         {"per_second_stdev", rates.stdev}, {"per_second_max", rates.max}};
  j["per_second"] = s.per_second;
  const double seconds = r.elapsed_s > 0 ? r.elapsed_s : 1;
  j["throughput"] = {{"bytes_read", s.bytes_read}, {"bytes_written", s.bytes_written},
                     {"read_bytes_per_s", s.bytes_read / seconds},
                     {"written_bytes_per_s", s.bytes_written / seconds}};
  nlohmann::ordered_json classes, codes = nlohmann::ordered_json::object();
  for (int hundreds = 1; hundreds <= 5; ++hundreds) classes[fmt::format("{}xx", hundreds)] = s.status_class(hundreds);
  for (int code = 100; code < 600; ++code) {
    if (s.status[code] > 0) codes[std::to_string(code)] = s.status[code];
  }
  j["status"] = {{"classes", classes}, {"codes", codes}};
  nlohmann::ordered_json errors;
  for (std::size_t i = 0; i < kErrorClasses; ++i) errors[std::string(error_key(static_cast<ErrorClass>(i)))] = s.errors[i];
  j["errors"] = errors;
  j["connect_failures_without_request"] = s.connect_failures;
  j["connections_opened"] = s.connections_opened;
  j["latency_us"] = histogram_json(s.latency);
  j["latency_uncorrected_us"] = histogram_json(s.latency_uncorrected);
  j["latency_corrected"] = c.rate > 0;
  j["connect_us"] = histogram_json(s.connect);
  j["tls_handshake_us"] = histogram_json(s.tls_handshake);
  j["waiting_us"] = histogram_json(s.waiting);
  j["tls"] = tls_json(s.tls);
  return j;
}

}  // namespace ringside::load
