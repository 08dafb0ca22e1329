#include "load/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "load/hdr_log.hpp"
#include "load/report.hpp"

namespace ringside::load {
namespace {

using Json = nlohmann::json;

[[noreturn]] void refuse(const std::string& file, const std::string& what) {
  throw MergeError(file + ": " + what);
}

const Json& field(const Json& object, const char* key, const std::string& file) {
  if (!object.is_object() || !object.contains(key)) {
    refuse(file, std::string("no \"") + key + "\" field: is this `ringside load --json` output?");
  }
  return object.at(key);
}

std::uint64_t count_of(const Json& object, const char* key, const std::string& file) {
  const Json& value = field(object, key, file);
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
    refuse(file, std::string("\"") + key + "\" is not a count");
  }
  return value.get<std::uint64_t>();
}

double number_of(const Json& object, const char* key, const std::string& file) {
  const Json& value = field(object, key, file);
  if (!value.is_number()) refuse(file, std::string("\"") + key + "\" is not a number");
  return value.get<double>();
}

Histogram histogram_of(const Json& document, const char* key, const std::string& file) {
  const Json& h = field(document, key, file);
  if (!h.contains("hdr")) {
    refuse(file, std::string("\"") + key +
                     "\" has no \"hdr\" histogram to merge: rerun the load with this ringside "
                     "version (schema 2 or later)");
  }
  Histogram histogram;
  try {
    histogram = decode_compressed(h.at("hdr").get<std::string>());
  } catch (const std::exception& e) {
    refuse(file, std::string("\"") + key + ".hdr\": " + e.what());
  }
  if (count_of(h, "lowest", file) != histogram.lowest_trackable() ||
      count_of(h, "highest", file) != histogram.highest_trackable() ||
      count_of(h, "digits", file) != static_cast<std::uint64_t>(histogram.significant_digits())) {
    refuse(file, std::string("\"") + key + "\": lowest/highest/digits disagree with its \"hdr\"");
  }
  if (histogram.count() != count_of(h, "count", file)) {
    refuse(file, std::string("\"") + key + "\": \"count\" disagrees with its \"hdr\"");
  }
  histogram.restore_summary(count_of(h, "min", file), count_of(h, "max", file),
                            number_of(h, "mean", file), number_of(h, "stdev", file));
  return histogram;
}

std::string layout_text(const Histogram& h) {
  return fmt::format("lowest {}, highest {}, {} digits", h.lowest_trackable(),
                     h.highest_trackable(), h.significant_digits());
}

std::string text_of(const Json& object, const char* key, const std::string& file) {
  const Json& value = field(object, key, file);
  if (value.is_null()) return "";
  if (!value.is_string()) refuse(file, std::string("\"tls.") + key + "\" is not a string or null");
  return value.get<std::string>();
}

void read_tls(const Json& tls, TlsSummary& summary, const std::string& file) {
  if (tls.is_null()) return;
  if (!tls.is_object()) refuse(file, "\"tls\" is neither an object nor null");
  summary.used = true;
  summary.version = text_of(tls, "version", file);
  summary.cipher = text_of(tls, "cipher", file);
  summary.group = text_of(tls, "group", file);
  summary.alpn = text_of(tls, "alpn", file);
  summary.handshakes = count_of(tls, "handshakes", file);
  summary.resumed = count_of(tls, "resumed", file);
}

double end_of(const LoadResult& r) { return r.start_epoch_s + r.elapsed_s; }

std::string name_of(const GeneratorResult& g) { return g.tag.empty() ? "-" : g.tag; }

}  // namespace

GeneratorResult read_generator_json(const Json& document, const std::string& file) {
  GeneratorResult g;
  g.file = file;
  if (!document.is_object() || !document.contains("schema")) {
    refuse(file, "not a `ringside load --json` document (no \"schema\")");
  }
  const Json& schema = document.at("schema");
  if (schema == 1) {
    refuse(file, "schema 1 has no histograms to merge: rerun the load with this ringside version");
  }
  if (!schema.is_number_integer() || schema.get<int>() < kOldestMergedSchema ||
      schema.get<int>() > kJsonSchemaVersion) {
    refuse(file, "schema " + schema.dump() + " is not one this ringside reads (" +
                     std::to_string(kOldestMergedSchema) + " to " +
                     std::to_string(kJsonSchemaVersion) + "): use the ringside that wrote it");
  }
  LoadResult& r = g.result;
  Stats& s = r.stats;
  if (document.contains("tag") && document.at("tag").is_string()) {
    g.tag = document.at("tag").get<std::string>();
    r.config.tag = g.tag;
  }
  g.config = field(document, "config", file);
  r.config.rate = number_of(g.config, "rate", file);
  r.interrupted = field(document, "interrupted", file).get<bool>();
  r.start_epoch_s = number_of(document, "start_epoch_s", file);
  r.elapsed_s = number_of(document, "elapsed_s", file);
  if (document.contains("intended_start_epoch_s") && document.at("intended_start_epoch_s").is_number()) {
    r.intended_start_epoch_s = document.at("intended_start_epoch_s").get<double>();
    r.start_late_s = r.start_epoch_s - *r.intended_start_epoch_s;
  }
  // Since the loader reported its own CPU (an older schema-2 document has none: 0).
  if (document.contains("loader") && document.at("loader").is_object()) {
    const Json& loader = document.at("loader");
    if (loader.contains("cpu_s") && loader.at("cpu_s").is_number()) r.cpu_s = loader.at("cpu_s").get<double>();
    if (loader.contains("threads") && loader.at("threads").is_number_unsigned()) {
      r.threads = loader.at("threads").get<unsigned>();
    }
  }
  const Json& requests = field(document, "requests", file);
  s.started = count_of(requests, "started", file);
  s.completed = count_of(requests, "completed", file);
  s.errored = count_of(requests, "failed", file);
  s.in_flight = count_of(requests, "in_flight", file);
  s.warmup_requests = count_of(requests, "warmup", file);
  for (const Json& n : field(document, "per_second", file)) s.per_second.push_back(n.get<std::uint64_t>());
  const Json& throughput = field(document, "throughput", file);
  s.bytes_read = count_of(throughput, "bytes_read", file);
  s.bytes_written = count_of(throughput, "bytes_written", file);
  for (const auto& [code, n] : field(field(document, "status", file), "codes", file).items()) {
    const int number = std::atoi(code.c_str());
    s.status[number > 0 && number < 600 ? number : 0] += n.get<std::uint64_t>();
  }
  const Json& errors = field(document, "errors", file);
  for (std::size_t i = 0; i < kErrorClasses; ++i) {
    const std::string key(error_key(static_cast<ErrorClass>(i)));
    if (errors.contains(key)) s.errors[i] = errors.at(key).get<std::uint64_t>();
  }
  s.connect_failures = count_of(document, "connect_failures_without_request", file);
  s.connections_opened = count_of(document, "connections_opened", file);
  s.latency = histogram_of(document, "latency_us", file);
  s.latency_uncorrected = histogram_of(document, "latency_uncorrected_us", file);
  s.connect = histogram_of(document, "connect_us", file);
  s.waiting = histogram_of(document, "waiting_us", file);
  // Since schema 3; a schema 2 document was plain http:// (it could be nothing else).
  if (document.contains("tls_handshake_us")) {
    s.tls_handshake = histogram_of(document, "tls_handshake_us", file);
  }
  if (document.contains("tls")) read_tls(document.at("tls"), s.tls, file);
  return g;
}

GeneratorResult read_generator_log(std::istream& in, const std::string& file) {
  GeneratorResult g;
  g.file = file;
  g.latency_only = true;
  HdrLog log;
  try {
    log = read_hdr_log(in);
  } catch (const std::runtime_error& e) {
    refuse(file, e.what());
  }
  if (log.intervals.empty()) refuse(file, "no histogram interval: is this an --hlog file?");
  if (!log.start_epoch_s) refuse(file, "no StartTime line: merging needs to know when it began");
  LoadResult& r = g.result;
  r.start_epoch_s = *log.start_epoch_s;
  g.tag = log.intervals.front().tag;
  r.config.tag = g.tag;
  for (const HdrLogInterval& interval : log.intervals) {
    if (!interval.histogram.same_layout(log.intervals.front().histogram)) {
      refuse(file, "its intervals have different histogram settings");
    }
    r.stats.latency.merge(interval.histogram);
    r.elapsed_s = std::max(r.elapsed_s, interval.start_s + interval.length_s);
    const auto second = static_cast<std::size_t>(std::max(interval.start_s, 0.0));
    if (r.stats.per_second.size() <= second) r.stats.per_second.resize(second + 1, 0);
    r.stats.per_second[second] += interval.histogram.count();
  }
  r.stats.completed = r.stats.started = r.stats.latency.count();
  return g;
}

GeneratorResult read_generator_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MergeError(path + ": cannot be opened: check the path");
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  const std::size_t first = content.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && content[first] == '{') {
    Json document = Json::parse(content, nullptr, false);
    if (document.is_discarded()) refuse(path, "is not valid JSON");
    return read_generator_json(document, path);
  }
  std::istringstream log(content);
  return read_generator_log(log, path);
}

double completed_within(const LoadResult& r, double from_epoch_s, double to_epoch_s) {
  const auto& per_second = r.stats.per_second;
  if (per_second.empty() || to_epoch_s <= from_epoch_s) return 0;
  // Completions noted in the turn that ended the run can land in a second past elapsed_s:
  // they belong to the last second of the phase.
  const std::size_t seconds = std::max<std::size_t>(
      static_cast<std::size_t>(std::ceil(r.elapsed_s - 1e-9)), 1);
  double total = 0;
  for (std::size_t i = 0; i < per_second.size(); ++i) {
    const std::size_t slot = std::min(i, seconds - 1);
    const double begin = r.start_epoch_s + static_cast<double>(slot);
    const double end = std::max(begin, std::min(begin + 1, end_of(r)));
    const double length = end - begin;
    const double overlap = std::min(end, to_epoch_s) - std::max(begin, from_epoch_s);
    if (length <= 0) {
      if (begin >= from_epoch_s && begin <= to_epoch_s) total += static_cast<double>(per_second[i]);
      continue;
    }
    if (overlap > 0) total += static_cast<double>(per_second[i]) * std::min(overlap / length, 1.0);
  }
  return total;
}

bool MergedRun::any_latency_only() const {
  return std::any_of(generators.begin(), generators.end(),
                     [](const GeneratorResult& g) { return g.latency_only; });
}

MergedRun merge_generators(std::vector<GeneratorResult> generators) {
  if (generators.empty()) throw MergeError("no input: give the JSON results or --hlog files to merge");
  MergedRun merged;
  const GeneratorResult& first = generators.front();
  for (const GeneratorResult& g : generators) {
    const Stats& a = first.result.stats;
    const Stats& b = g.result.stats;
    const bool same = a.latency.same_layout(b.latency) &&
                      (first.latency_only || g.latency_only ||
                       (a.latency_uncorrected.same_layout(b.latency_uncorrected) &&
                        a.connect.same_layout(b.connect) && a.waiting.same_layout(b.waiting) &&
                        a.tls_handshake.same_layout(b.tls_handshake)));
    if (!same) {
      throw MergeError(first.file + " and " + g.file + ": the histograms have different settings (" +
                       layout_text(a.latency) + " against " + layout_text(b.latency) +
                       "): merge only results of one ringside version and settings");
    }
  }
  LoadResult& total = merged.total;
  double earliest = first.result.start_epoch_s, latest = earliest;
  double earliest_end = end_of(first.result), latest_end = earliest_end;
  const GeneratorResult* first_to_start = &first;
  for (const GeneratorResult& g : generators) {
    const LoadResult& r = g.result;
    total.stats.merge(r.stats);
    total.cpu_s += r.cpu_s;
    total.threads += r.threads;
    total.config.rate += r.config.rate;
    total.interrupted = total.interrupted || r.interrupted;
    if (r.start_epoch_s < earliest) {
      earliest = r.start_epoch_s;
      first_to_start = &g;
    }
    latest = std::max(latest, r.start_epoch_s);
    earliest_end = std::min(earliest_end, end_of(r));
    latest_end = std::max(latest_end, end_of(r));
  }
  for (const GeneratorResult& g : generators) {
    const double after = g.result.start_epoch_s - earliest;
    if (after > kMaxStartSpreadS) {
      merged.warnings.push_back(fmt::format(
          "{} began {:.3f} ms after {} (more than {:.0f} ms): were the clocks synchronised and "
          "--start-at given to every generator?",
          g.file, after * 1e3, first_to_start->file, kMaxStartSpreadS * 1e3));
    }
  }
  total.start_epoch_s = earliest;
  total.elapsed_s = latest_end - earliest;
  const auto& intended = first.result.intended_start_epoch_s;
  const bool one_instant = std::all_of(generators.begin(), generators.end(), [&](const auto& g) {
    return g.result.intended_start_epoch_s == intended;
  });
  if (intended && one_instant) {
    total.intended_start_epoch_s = intended;
    total.start_late_s = latest - *intended;  // the last generator to begin
  }
  merged.start_spread_s = latest - earliest;
  merged.window_start_epoch_s = latest;
  merged.window_end_epoch_s = earliest_end;
  if (merged.window_s() > 0) {
    for (const GeneratorResult& g : generators) {
      merged.window_completed += completed_within(g.result, latest, earliest_end);
    }
    merged.requests_per_s = merged.window_completed / merged.window_s();
  } else {
    merged.warnings.push_back(
        "the runs did not overlap in time (no common window): no merged rate");
  }
  merged.generators = std::move(generators);
  return merged;
}

std::string format_merge_text(const MergedRun& m) {
  const LoadResult& t = m.total;
  const Stats& s = t.stats;
  std::string out;
  out += fmt::format("ringside merge  {} generators\n", m.generators.size());
  out += fmt::format("  {:<12} {:<24} {:>18} {:>9} {:>11} {:>8} {:>12}\n", "tag", "file",
                     "start (epoch s)", "elapsed", "completed", "failed", "requests/s");
  for (const GeneratorResult& g : m.generators) {
    const LoadResult& r = g.result;
    const double rate = r.elapsed_s > 0 ? r.stats.completed / r.elapsed_s : 0;
    out += fmt::format("  {:<12} {:<24} {:>18.6f} {:>8.3f}s {:>11} {:>8} {:>12.2f}\n", name_of(g),
                       g.file, r.start_epoch_s, r.elapsed_s, r.stats.completed,
                       g.latency_only ? "-" : std::to_string(r.stats.errored), rate);
  }
  if (m.any_latency_only()) {
    out += "  - histogram logs give latency and completions only: their failures, statuses and "
           "bytes are unknown, and not in the totals\n";
  }
  out += fmt::format("  start spread  {:.3f} ms (latest start - earliest)\n", m.start_spread_s * 1e3);
  if (m.window_s() > 0) {
    out += fmt::format("  common window {:.6f} .. {:.6f} ({:.3f} s, every generator measuring)\n",
                       m.window_start_epoch_s, m.window_end_epoch_s, m.window_s());
  } else {
    out += "  common window none: the runs did not overlap\n";
  }
  if (t.interrupted) out += "  interrupted: at least one generator was stopped early\n";
  out += "\n";
  out += fmt::format("Requests      {} completed, {} failed, {} in flight at the stop ({} started)\n",
                     s.completed, s.errored, s.in_flight, s.started);
  out += fmt::format("Requests/s    {:.2f} over the common window ({:.0f} completed inside it / "
                     "{:.3f} s)\n",
                     m.requests_per_s, m.window_completed, std::max(m.window_s(), 0.0));
  out += fmt::format("Elapsed       {:.3f} s from the earliest start to the latest end\n", t.elapsed_s);
  out += "\n";
  return out + format_details(t);
}

nlohmann::ordered_json merge_to_json(const MergedRun& m) {
  // The config of the first JSON input, with the settings that add up summed.
  nlohmann::ordered_json config;
  for (const GeneratorResult& g : m.generators) {
    if (g.latency_only) continue;
    if (config.is_null()) {
      config = g.config;
      for (const char* key : {"connections", "threads", "requests"}) config[key] = 0;
      config["rate"] = 0.0;
    }
    for (const char* key : {"connections", "threads", "requests"}) {
      config[key] = config[key].get<std::uint64_t>() + g.config.value(key, std::uint64_t{0});
    }
    config["rate"] = config["rate"].get<double>() + g.config.value("rate", 0.0);
    config["duration_s"] = std::max(config["duration_s"].get<double>(), g.config.value("duration_s", 0.0));
  }
  // The merge is the whole load, not the first generator's part of it.
  if (config.is_object()) config.erase("share");
  // Logs alone carry no configuration: "config" stays null.
  nlohmann::ordered_json j = to_json(m.total, config);
  j["requests_per_s"]["overall"] = m.requests_per_s;
  j["start_spread_s"] = m.start_spread_s;
  j["common_window"] = {{"start_epoch_s", m.window_start_epoch_s},
                        {"end_epoch_s", m.window_end_epoch_s},
                        {"seconds", std::max(m.window_s(), 0.0)},
                        {"completed", m.window_completed}};
  nlohmann::ordered_json from = nlohmann::ordered_json::array();
  for (const GeneratorResult& g : m.generators) {
    const LoadResult& r = g.result;
    from.push_back({{"tag", g.tag.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.tag)},
                    {"file", g.file},
                    {"kind", g.latency_only ? "hlog" : "json"},
                    {"start_epoch_s", r.start_epoch_s},
                    {"elapsed_s", r.elapsed_s},
                    {"completed", r.stats.completed},
                    {"failed", g.latency_only ? nlohmann::ordered_json(nullptr)
                                              : nlohmann::ordered_json(r.stats.errored)},
                    {"requests_per_s", r.elapsed_s > 0 ? r.stats.completed / r.elapsed_s : 0.0}});
  }
  j["merged_from"] = from;
  return j;
}

}  // namespace ringside::load
