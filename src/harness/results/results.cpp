#include "harness/results/results.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ringside::harness {
namespace {

using nlohmann::json;

json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

double number_of(const json& object, const char* key) {
  if (!object.contains(key) || object.at(key).is_null()) return kUnmeasured;
  if (!object.at(key).is_number()) throw ResultsError(std::string("field '") + key + "' is not a number");
  return object.at(key).get<double>();
}

template <typename T>
T value_of(const json& object, const char* key, T fallback) {
  if (!object.contains(key) || object.at(key).is_null()) return fallback;
  try {
    return object.at(key).get<T>();
  } catch (const json::exception&) {
    throw ResultsError(std::string("field '") + key + "' has the wrong type");
  }
}

// A value of one of kinds.hpp's sets, written by its name; the fallback when absent.
template <typename Enum>
Enum kind_of(const json& object, const char* key, std::optional<Enum> (*parse)(std::string_view),
             Enum fallback) {
  if (!object.contains(key) || object.at(key).is_null()) return fallback;
  const std::string name = value_of<std::string>(object, key, "");
  if (const std::optional<Enum> kind = parse(name)) return *kind;
  throw ResultsError(std::string("field '") + key + "' has an unknown value '" + name + "'");
}

json latency_json(const LatencyFigures& l) {
  return {{"p50", number(l.p50)},     {"p90", number(l.p90)},   {"p99", number(l.p99)},
          {"p99.9", number(l.p999)},  {"p99.99", number(l.p9999)},
          {"max", number(l.max)},     {"mean", number(l.mean)}};
}

LatencyFigures latency_of(const json& j) {
  LatencyFigures l;
  l.p50 = number_of(j, "p50");
  l.p90 = number_of(j, "p90");
  l.p99 = number_of(j, "p99");
  l.p999 = number_of(j, "p99.9");
  l.p9999 = number_of(j, "p99.99");
  l.max = number_of(j, "max");
  l.mean = number_of(j, "mean");
  return l;
}

json generators_json(const std::vector<GeneratorFigures>& generators) {
  json list = json::array();
  for (const GeneratorFigures& g : generators) {
    list.push_back({{"name", g.name},
                    {"completed", g.completed},
                    {"failed", g.failed},
                    {"requests_per_s", number(g.requests_per_s)},
                    {"start_late_s", number(g.start_late_s)},
                    {"cpu_s", number(g.cpu_s)},
                    {"threads", g.threads},
                    {"cpu_share", number(g.cpu_share)}});
  }
  return list;
}

std::vector<GeneratorFigures> generators_of(const json& j) {
  std::vector<GeneratorFigures> generators;
  if (!j.contains("generators") || !j.at("generators").is_array()) return generators;
  for (const json& g : j.at("generators")) {
    GeneratorFigures one;
    one.name = value_of<std::string>(g, "name", "");
    one.completed = value_of<std::uint64_t>(g, "completed", 0);
    one.failed = value_of<std::uint64_t>(g, "failed", 0);
    one.requests_per_s = number_of(g, "requests_per_s");
    one.start_late_s = number_of(g, "start_late_s");
    one.cpu_s = number_of(g, "cpu_s");
    one.threads = value_of<unsigned>(g, "threads", 0);
    one.cpu_share = number_of(g, "cpu_share");
    generators.push_back(std::move(one));
  }
  return generators;
}

json server_cpus_json(const ServerCpuFigures& c) {
  json others = json::array();
  for (const ProcessShare& o : c.others) others.push_back({{"name", o.name}, {"cpu_s", number(o.cpu_s)}});
  return {{"wait_s", number(c.wait_s)},
          {"others_s", number(c.others_s)},
          {"steal_s", number(c.steal_s)},
          {"others_share", number(c.others_share)},
          {"others", others}};
}

ServerCpuFigures server_cpus_of(const json& j) {
  ServerCpuFigures c;
  c.wait_s = number_of(j, "wait_s");
  c.others_s = number_of(j, "others_s");
  c.steal_s = number_of(j, "steal_s");
  c.others_share = number_of(j, "others_share");
  if (j.contains("others") && j.at("others").is_array()) {
    for (const json& o : j.at("others")) {
      c.others.push_back({value_of<std::string>(o, "name", ""), value_of<double>(o, "cpu_s", 0)});
    }
  }
  return c;
}

json interval_json(const Interval& i) {
  return {{"low", number(i.low)}, {"high", number(i.high)}, {"confidence", number(i.confidence)}};
}

Interval interval_of(const json& j, const char* key) {
  Interval i;
  if (!j.contains(key) || !j.at(key).is_object()) return i;  // absent in older files
  i.low = number_of(j.at(key), "low");
  i.high = number_of(j.at(key), "high");
  i.confidence = number_of(j.at(key), "confidence");
  return i;
}

json round_json(const RoundFigures& r) {
  return {
      {"round", r.round},
      {"duration_s", number(r.duration_s)},
      {"completed", r.completed},
      {"failed", r.failed},
      {"requests_per_s", number(r.requests_per_s)},
      {"target_rate", number(r.target_rate)},
      {"latency_us", latency_json(r.latency)},
      {"statuses", r.statuses},
      {"errors", r.errors},
      {"server_cpu_s", number(r.server_cpu_s)},
      {"server_cpu_us_per_request", number(r.server_cpu_us_per_request)},
      {"loader_cpu_s", number(r.loader_cpu_s)},
      {"loader_cpu_share", number(r.loader_cpu_share)},
      {"loader_wait_s", number(r.loader_wait_s)},
      {"rss_peak_kib", number(r.rss_peak_kib)},
      {"rss_mean_kib", number(r.rss_mean_kib)},
      {"kernel",
       {{"listen_overflows", r.kernel.listen_overflows},
        {"listen_drops", r.kernel.listen_drops},
        {"syn_retransmits", r.kernel.syn_retransmits},
        {"resets_sent", r.kernel.resets_sent},
        {"established_peak", r.kernel.established_peak}}},
      {"database",
       {{"cpu_s", number(r.database.cpu_s)},
        {"cpu_us_per_request", number(r.database.cpu_us_per_request)},
        {"queries", number(r.database.queries)},
        {"queries_per_request", number(r.database.queries_per_request)},
        {"cpu_us_per_query", number(r.database.cpu_us_per_query)}}},
      {"server_cpus", server_cpus_json(r.server_cpus)},
      {"histogram_log", r.histogram_log},
      {"flags", r.flags},
      {"notes", r.notes},
      {"generators", generators_json(r.generators)},
  };
}

RoundFigures round_of(const json& j) {
  RoundFigures r;
  r.round = value_of<unsigned>(j, "round", 0);
  r.duration_s = number_of(j, "duration_s");
  r.completed = value_of<std::uint64_t>(j, "completed", 0);
  r.failed = value_of<std::uint64_t>(j, "failed", 0);
  r.requests_per_s = number_of(j, "requests_per_s");
  r.target_rate = number_of(j, "target_rate");
  if (j.contains("latency_us")) r.latency = latency_of(j.at("latency_us"));
  r.statuses = value_of<std::map<std::string, std::uint64_t>>(j, "statuses", {});
  r.errors = value_of<std::map<std::string, std::uint64_t>>(j, "errors", {});
  r.server_cpu_s = number_of(j, "server_cpu_s");
  r.server_cpu_us_per_request = number_of(j, "server_cpu_us_per_request");
  r.loader_cpu_s = number_of(j, "loader_cpu_s");
  r.loader_cpu_share = number_of(j, "loader_cpu_share");
  r.loader_wait_s = number_of(j, "loader_wait_s");
  r.rss_peak_kib = number_of(j, "rss_peak_kib");
  r.rss_mean_kib = number_of(j, "rss_mean_kib");
  if (j.contains("kernel")) {
    const json& k = j.at("kernel");
    r.kernel.listen_overflows = value_of<std::uint64_t>(k, "listen_overflows", 0);
    r.kernel.listen_drops = value_of<std::uint64_t>(k, "listen_drops", 0);
    r.kernel.syn_retransmits = value_of<std::uint64_t>(k, "syn_retransmits", 0);
    r.kernel.resets_sent = value_of<std::uint64_t>(k, "resets_sent", 0);
    r.kernel.established_peak = value_of<std::uint64_t>(k, "established_peak", 0);
  }
  if (j.contains("database")) {  // absent in files written before it was measured
    const json& d = j.at("database");
    r.database.cpu_s = number_of(d, "cpu_s");
    r.database.cpu_us_per_request = number_of(d, "cpu_us_per_request");
    r.database.queries = number_of(d, "queries");
    r.database.queries_per_request = number_of(d, "queries_per_request");
    r.database.cpu_us_per_query = number_of(d, "cpu_us_per_query");
  }
  if (j.contains("server_cpus") && j.at("server_cpus").is_object()) {  // absent in older files
    r.server_cpus = server_cpus_of(j.at("server_cpus"));
  }
  r.histogram_log = value_of<std::string>(j, "histogram_log", "");
  r.flags = value_of<std::vector<std::string>>(j, "flags", {});
  r.notes = value_of<std::vector<std::string>>(j, "notes", {});
  r.generators = generators_of(j);
  return r;
}

json point_json(const PointResult& p) {
  json rounds = json::array();
  for (const RoundFigures& r : p.rounds) rounds.push_back(round_json(r));
  return {{"workload", p.workload},
          {"contestant", p.contestant},
          {"mode", std::string(mode_name(p.mode))},
          {"connections", p.connections},
          {"rate", number(p.rate)},
          {"loader", std::string(loader_name(p.loader))},
          {"rounds", rounds},
          {"median", round_json(p.median)},
          {"left_out", p.left_out},
          {"requests_per_s_min", number(p.requests_per_s_min)},
          {"requests_per_s_max", number(p.requests_per_s_max)},
          {"requests_per_s_interval", interval_json(p.requests_per_s_interval)},
          {"cpu_us_per_request_interval", interval_json(p.cpu_us_per_request_interval)},
          {"noisy", p.noisy},
          {"noisy_note", p.noisy_note},
          {"could_not_carry", p.could_not_carry},
          {"failure", p.failure}};
}

PointResult point_of(const json& j) {
  PointResult p;
  p.workload = value_of<std::string>(j, "workload", "");
  p.contestant = value_of<std::string>(j, "contestant", "");
  if (p.workload.empty() || p.contestant.empty()) {
    throw ResultsError("a point lacks its 'workload' or 'contestant'");
  }
  p.mode = kind_of(j, "mode", mode_from_name, LoadMode::kClosed);
  p.connections = value_of<unsigned>(j, "connections", 0);
  p.rate = number_of(j, "rate");
  p.loader = kind_of(j, "loader", loader_from_name, LoaderKind::kRingside);
  if (j.contains("rounds")) {
    for (const json& r : j.at("rounds")) p.rounds.push_back(round_of(r));
  }
  if (j.contains("median")) p.median = round_of(j.at("median"));
  p.left_out = value_of<std::vector<unsigned>>(j, "left_out", {});
  p.requests_per_s_min = number_of(j, "requests_per_s_min");
  p.requests_per_s_max = number_of(j, "requests_per_s_max");
  p.requests_per_s_interval = interval_of(j, "requests_per_s_interval");
  p.cpu_us_per_request_interval = interval_of(j, "cpu_us_per_request_interval");
  p.noisy = value_of<bool>(j, "noisy", false);
  p.noisy_note = value_of<std::string>(j, "noisy_note", "");
  p.could_not_carry = value_of<bool>(j, "could_not_carry", false);
  p.failure = value_of<std::string>(j, "failure", "");
  return p;
}

json machine_json(const MachineFacts& m) {
  return {{"cpu_model", m.cpu_model},   {"cores", m.cores},
          {"kernel", m.kernel},         {"memory_kib", m.memory_kib},
          {"governor", m.governor},     {"server_cpus", m.server_cpus},
          {"load_cpus", m.load_cpus},   {"warnings", m.warnings}};
}

MachineFacts machine_of(const json& m) {
  MachineFacts machine;
  machine.cpu_model = value_of<std::string>(m, "cpu_model", "");
  machine.cores = value_of<unsigned>(m, "cores", 0);
  machine.kernel = value_of<std::string>(m, "kernel", "");
  machine.memory_kib = value_of<std::uint64_t>(m, "memory_kib", 0);
  machine.governor = value_of<std::string>(m, "governor", "");
  machine.server_cpus = value_of<std::string>(m, "server_cpus", "");
  machine.load_cpus = value_of<std::string>(m, "load_cpus", "");
  machine.warnings = value_of<std::vector<std::string>>(m, "warnings", {});
  return machine;
}

json workloads_json(const std::vector<WorkloadInfo>& workloads) {
  json list = json::array();
  for (const WorkloadInfo& w : workloads) {
    list.push_back({{"name", w.name}, {"method", w.method}, {"path", w.path},
                    {"mode", std::string(mode_name(w.mode))},
                    {"loader", std::string(loader_name(w.loader))},
                    {"protocol", std::string(protocol_name(w.protocol))}});
    if (over_tls(w.protocol)) list.back()["tls_resume"] = w.tls_resume;
    if (is_http2(w.protocol)) list.back()["streams"] = w.streams;
  }
  return list;
}

std::vector<WorkloadInfo> workloads_of(const json& list) {
  std::vector<WorkloadInfo> workloads;
  for (const json& w : list) {
    workloads.push_back(
        {value_of<std::string>(w, "name", ""), value_of<std::string>(w, "method", "GET"),
         value_of<std::string>(w, "path", ""),
         kind_of(w, "mode", mode_from_name, LoadMode::kClosed),
         kind_of(w, "loader", loader_from_name, LoaderKind::kRingside),
         // absent in files written before https workloads: all were http
         kind_of(w, "protocol", protocol_from_name, Protocol::kHttp),
         value_of<double>(w, "tls_resume", 0.0), value_of<unsigned>(w, "streams", 1U)});
  }
  return workloads;
}

json contestant_json(const ContestantResult& c) {
  json warnings = json::array();
  for (const ContestantWarning& w : c.warnings) {
    warnings.push_back({{"check", w.check}, {"message", w.message}});
  }
  json skipped = json::array();
  for (const WorkloadSkip& s : c.skipped_workloads) {
    skipped.push_back({{"workload", s.workload}, {"reason", s.reason}});
  }
  return {{"name", c.name},
          {"description", c.description},
          {"runtime", c.runtime},
          {"version", c.version},
          {"threads", c.threads},
          {"status", std::string(status_name(c.status))},
          {"reason", c.reason},
          {"last_output", c.last_output},
          {"rss_idle_kib", number(c.rss_idle_kib)},
          {"rss_after_kib", number(c.rss_after_kib)},
          {"warnings", warnings},
          {"skipped_workloads", skipped}};
}

ContestantResult contestant_of(const json& c) {
  ContestantResult contestant;
  contestant.name = value_of<std::string>(c, "name", "");
  contestant.description = value_of<std::string>(c, "description", "");
  contestant.runtime = value_of<std::string>(c, "runtime", "");
  contestant.version = value_of<std::string>(c, "version", "");
  contestant.threads = value_of<unsigned>(c, "threads", 0);
  contestant.status = kind_of(c, "status", status_from_name, ContestantStatus::kRan);
  contestant.reason = value_of<std::string>(c, "reason", "");
  contestant.last_output = value_of<std::string>(c, "last_output", "");
  contestant.rss_idle_kib = number_of(c, "rss_idle_kib");
  contestant.rss_after_kib = number_of(c, "rss_after_kib");
  if (c.contains("warnings") && c.at("warnings").is_array()) {  // absent before the fairness check
    for (const json& w : c.at("warnings")) {
      contestant.warnings.push_back(
          {value_of<std::string>(w, "check", ""), value_of<std::string>(w, "message", "")});
    }
  }
  if (c.contains("skipped_workloads") && c.at("skipped_workloads").is_array()) {  // absent before https
    for (const json& s : c.at("skipped_workloads")) {
      contestant.skipped_workloads.push_back(
          {value_of<std::string>(s, "workload", ""), value_of<std::string>(s, "reason", "")});
    }
  }
  return contestant;
}

json load_json(const RunResults& results) {
  json hosts = json::array();
  for (const LoadHostFacts& h : results.load_hosts) {
    hosts.push_back({{"name", h.name},
                     {"destination", h.destination},
                     {"binary", h.binary},
                     {"clock_offset_s", number(h.clock_offset_s)},
                     {"round_trip_s", number(h.round_trip_s)}});
  }
  return {{"engine", results.load_engine}, {"server_address", results.server_address}, {"hosts", hosts}};
}

void read_load(const json& l, RunResults& results) {
  results.load_engine = value_of<std::string>(l, "engine", "local");
  results.server_address = value_of<std::string>(l, "server_address", "");
  if (!l.contains("hosts") || !l.at("hosts").is_array()) return;
  for (const json& h : l.at("hosts")) {
    LoadHostFacts host;
    host.name = value_of<std::string>(h, "name", "");
    host.destination = value_of<std::string>(h, "destination", "");
    host.binary = value_of<std::string>(h, "binary", "");
    host.clock_offset_s = number_of(h, "clock_offset_s");
    host.round_trip_s = number_of(h, "round_trip_s");
    results.load_hosts.push_back(std::move(host));
  }
}

json rounds_policy_json(const RoundsPolicy& policy) {
  return {{"automatic", policy.automatic},
          {"min", policy.min},
          {"max", policy.max},
          {"target", number(policy.target)},
          {"confidence", number(policy.confidence)},
          {"time_budget_s", number(policy.time_budget_s)},
          {"method", policy.method}};
}

RoundsPolicy rounds_policy_of(const json& r) {
  RoundsPolicy policy;
  policy.automatic = value_of<bool>(r, "automatic", false);
  policy.min = value_of<unsigned>(r, "min", 0);
  policy.max = value_of<unsigned>(r, "max", 0);
  policy.target = number_of(r, "target");
  policy.confidence = number_of(r, "confidence");
  policy.time_budget_s = number_of(r, "time_budget_s");
  policy.method = value_of<std::string>(r, "method", "");
  return policy;
}

json shield_json(const ShieldFacts& s) {
  return {{"requested", s.requested},
          {"active", s.active},
          {"moved", s.moved},
          {"unmovable", s.unmovable},
          {"unmovable_names", s.unmovable_names},
          {"problem", s.problem}};
}

ShieldFacts shield_of(const json& s) {
  ShieldFacts shield;
  shield.requested = value_of<bool>(s, "requested", false);
  shield.active = value_of<bool>(s, "active", false);
  shield.moved = value_of<unsigned>(s, "moved", 0);
  shield.unmovable = value_of<unsigned>(s, "unmovable", 0);
  shield.unmovable_names = value_of<std::vector<std::string>>(s, "unmovable_names", {});
  shield.problem = value_of<std::string>(s, "problem", "");
  return shield;
}

bool has_object(const json& document, const char* key) {
  return document.contains(key) && document.at(key).is_object();
}

}  // namespace

std::string to_json_text(const RunResults& results) {
  json contestants = json::array();
  for (const ContestantResult& c : results.contestants) contestants.push_back(contestant_json(c));
  json points = json::array();
  for (const PointResult& p : results.points) points.push_back(point_json(p));
  const json document = {{"schema", results.schema},
                         {"ringside_version", results.ringside_version},
                         {"scenario", {{"name", results.scenario_name}, {"file", results.scenario_file}}},
                         {"started_at", results.started_at},
                         {"finished_at", results.finished_at},
                         {"partial", results.partial},
                         {"rounds", results.rounds},
                         {"rounds_policy", rounds_policy_json(results.rounds_policy)},
                         {"baseline", results.baseline},
                         {"machine", machine_json(results.machine)},
                         {"shield", shield_json(results.shield)},
                         {"load", load_json(results)},
                         {"workloads", workloads_json(results.workloads)},
                         {"contestants", contestants},
                         {"points", points}};
  return document.dump(2) + "\n";
}

RunResults from_json_text(const std::string& text) {
  const json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) throw ResultsError("not a JSON object");
  RunResults results;
  results.schema = value_of<std::string>(document, "schema", "");
  if (results.schema != kResultsSchema) {
    throw ResultsError("schema '" + results.schema + "' is not " + kResultsSchema);
  }
  results.ringside_version = value_of<std::string>(document, "ringside_version", "");
  if (document.contains("scenario")) {
    results.scenario_name = value_of<std::string>(document.at("scenario"), "name", "");
    results.scenario_file = value_of<std::string>(document.at("scenario"), "file", "");
  }
  results.started_at = value_of<std::string>(document, "started_at", "");
  results.finished_at = value_of<std::string>(document, "finished_at", "");
  results.partial = value_of<bool>(document, "partial", false);
  results.rounds = value_of<unsigned>(document, "rounds", 0);
  results.baseline = value_of<std::string>(document, "baseline", "");
  if (has_object(document, "rounds_policy")) results.rounds_policy = rounds_policy_of(document.at("rounds_policy"));
  if (has_object(document, "shield")) results.shield = shield_of(document.at("shield"));
  if (document.contains("machine")) results.machine = machine_of(document.at("machine"));
  if (has_object(document, "load")) read_load(document.at("load"), results);  // absent before load hosts
  if (document.contains("workloads")) results.workloads = workloads_of(document.at("workloads"));
  if (document.contains("contestants")) {
    for (const json& c : document.at("contestants")) results.contestants.push_back(contestant_of(c));
  }
  if (document.contains("points")) {
    for (const json& p : document.at("points")) results.points.push_back(point_of(p));
  }
  return results;
}

void write_results_file(const RunResults& results, const std::filesystem::path& path) {
  const std::filesystem::path temporary = path.string() + ".partial";
  {
    std::ofstream out(temporary);
    out << to_json_text(results);
    if (!out) throw ResultsError("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);  // readers never see half a file
}

RunResults read_results_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ResultsError(path.string() + ": cannot read it");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return from_json_text(text.str());
  } catch (const ResultsError& error) {
    throw ResultsError(path.string() + ": " + error.what());
  }
}

}  // namespace ringside::harness
