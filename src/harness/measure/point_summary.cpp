#include "harness/measure/point_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "harness/measure/server_cpu_watch.hpp"

namespace ringside::harness {
namespace {

void flag(RoundFigures& round, const std::string& name, const std::string& note) {
  if (std::find(round.flags.begin(), round.flags.end(), name) != round.flags.end()) return;
  round.flags.push_back(name);
  round.notes.push_back(note);
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", share * 100);
  return text;
}

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// Little's law's L at connections x pipeline: the loader had every connection busy, so what it
// did not get was the server's to give. The in-process loader measured its requests in flight;
// for an external one, requests/s x mean latency says it.
bool connections_busy(const RoundFigures& round, const PointContext& context) {
  const double full = (1 - kLittleTolerance) * static_cast<double>(context.connections) *
                      context.pipeline;
  if (!(full > 0)) return false;
  if (context.mean_outstanding >= 0 || context.in_flight_at_end >= 0) {
    return context.mean_outstanding >= full ||
           static_cast<double>(context.in_flight_at_end) >= full;
  }
  return std::isfinite(round.requests_per_s) && std::isfinite(round.latency.mean) &&
         round.requests_per_s * round.latency.mean / 1e6 >= full;
}

// An open point short of its rate: the server's limit when the loader's connections were all
// waiting on it, the loader's when they were not.
void judge_open_rate(RoundFigures& round, const PointContext& context) {
  if (context.mode != LoadMode::kOpen || !std::isfinite(round.target_rate) || !(round.target_rate > 0) ||
      !std::isfinite(round.requests_per_s) ||
      round.requests_per_s >= round.target_rate * (1 - kOpenShortfall)) {
    return;
  }
  const std::string shortfall =
      "asked for " + with_commas(static_cast<std::uint64_t>(round.target_rate)) +
      " requests/s, got " + with_commas(static_cast<std::uint64_t>(round.requests_per_s));
  if (connections_busy(round, context)) {
    flag(round, "server-bound",
         shortfall + " with all " + with_commas(context.connections) +
             " connections busy: the server could not carry this rate");
  } else {
    flag(round, "loader-bound",
         shortfall + ": the offered load was not delivered, so latency here is not at that rate");
  }
}

// The loader's own CPU: busy, or waiting for a core (load hosts: each on its own CPU).
void judge_loader_cpu(RoundFigures& round, const PointContext& context) {
  const double cores = std::max(context.loader_cores, 1.0);
  const double wall = round.duration_s;
  const double cpu_share = round.loader_cpu_s / (wall * cores);
  const double wait_share =
      (std::isfinite(round.loader_wait_s) ? round.loader_wait_s : 0) / (wall * cores);
  if (!round.generators.empty()) {
    // Load hosts: each judged on its own CPU, which it measured itself (its "loader" figures).
    std::string busy;
    for (const GeneratorFigures& g : round.generators) {
      if (!(std::isfinite(g.cpu_share) && g.cpu_share >= kLoaderBusyShare)) continue;
      busy += (busy.empty() ? "" : ", ") + g.name + " " + percent(g.cpu_share) + " of its " +
              std::to_string(g.threads) + " core(s)";
    }
    if (!busy.empty()) {
      flag(round, "loader-bound",
           "load host(s) used " + busy + ": the loader, not the server, set the pace; add load "
           "hosts or give the workload more loader_threads");
    }
  } else if (std::isfinite(cpu_share) && cpu_share >= kLoaderBusyShare) {
    flag(round, "loader-bound",
         "the loader used " + percent(cpu_share) + " of its " + fixed(cores, 0) +
             " core(s): it, not the server, set the pace; give it more load_cpus or loader_threads");
  } else if (std::isfinite(wait_share) && wait_share >= kLoaderWaitShare) {
    // A loader waiting for a CPU sends late and reads late; its latencies include the wait.
    flag(round, "loader-bound",
         "the loader waited for a CPU " + percent(std::min(wait_share, 1.0)) +
             " of the time (it ran " + percent(cpu_share) +
             "): another process took its core, or its cgroup's CPU quota ran out, so it, not "
             "the server, set the pace");
  }
}

// A closed loop that did not keep its connections busy (Little's law): the loader set the pace.
void judge_in_flight(RoundFigures& round, const PointContext& context) {
  const double wall = round.duration_s;
  const bool connections_complete =
      !context.connections_counted || round.kernel.established_peak >= context.connections;
  if (context.mode == LoadMode::kClosed && context.mean_outstanding >= 0) {
    // Little's law's L measured by the loader itself: the requests it had in flight, averaged
    // over the point. A closed loop that keeps its connections busy holds it at connections x
    // pipeline whatever the latency's tail (the mean latency of answered requests misses the
    // ones still waiting at the end, so L = throughput x mean latency misjudges long tails).
    const double expected = static_cast<double>(context.connections) * context.pipeline;
    if (connections_complete && expected > 0 &&
        context.mean_outstanding < (1 - kLittleTolerance) * expected) {
      flag(round, "loader-bound",
           "the loader had " + fixed(context.mean_outstanding, 1) + " of its " + fixed(expected, 0) +
               " requests in flight on average: it left connections idle between an answer and "
               "the next request, so it, not the server, set the pace");
    }
  } else if (context.mode == LoadMode::kClosed && connections_complete && round.failed == 0 &&
      round.completed > 0 && std::isfinite(round.latency.mean) &&
      round.latency.mean / 1e6 <= kLittleMaxLatencyShare * wall &&
      std::isfinite(round.requests_per_s) && context.connections > 0) {
    const double expected = static_cast<double>(context.connections) * context.pipeline;
    const double in_flight = round.requests_per_s * round.latency.mean / 1e6;
    // The estimate given the benefit of the tool's latency resolution (ab: whole milliseconds).
    const double in_flight_at_most =
        in_flight + round.requests_per_s * std::max(context.latency_resolution_s, 0.0);
    // A loader that ended with every request outstanding kept its connections busy: the gap is
    // then requests the server held past the end of the point (in no mean), not the loader's.
    const bool loader_full = context.in_flight_at_end >= 0 &&
                             static_cast<double>(context.in_flight_at_end) >=
                                 (1 - kLittleTolerance) * expected;
    // Only an estimate clearly below the connections says the loader idled. One above them is
    // no idle loader: an external loader's latency includes the time an answer waited for it to
    // read (wrk, a thread busy with its other connections), and wrk's mean is over its threads.
    if (!loader_full && in_flight_at_most < (1 - kLittleTolerance) * expected) {
      flag(round, "loader-bound",
           "Little's law does not hold: " + fixed(expected, 0) +
               " requests were meant to be in flight, but requests/s x mean latency gives " +
               fixed(in_flight, 1) + ": the loader did not keep its connections busy");
    }
  }
}

void judge_loader(RoundFigures& round, const PointContext& context) {
  if (!(round.duration_s > 0)) return;
  judge_loader_cpu(round, context);
  judge_open_rate(round, context);
  judge_in_flight(round, context);
}

// Requests an external loader lost in a way a reset can cause: every error class it reports but
// timeouts, malformed answers and ab's length mismatches (which had answers).
std::uint64_t lost_to_resets(const RoundFigures& round) {
  std::uint64_t lost = 0;
  for (const auto& [name, count] : round.errors) {
    if (name != "timeout" && name != "connect_timeout" && name != "malformed" && name != "length") {
      lost += count;
    }
  }
  return lost;
}

// Connections the kernel dropped at a full listen queue.
void judge_listen_queue(RoundFigures& round, const PointContext& context) {
  const KernelFigures& k = round.kernel;
  if (context.listen_drops_per_port) {
    // The server's own listening sockets say it; the machine-wide counters may be anyone's. A
    // listener's drops also count stray segments it discarded (a late ACK for a handshake
    // already done), harmless; a full queue shows as well in the loader's retried connects, or
    // in the machine's ListenOverflows (a final ACK dropped: the client thinks it is connected).
    // (An external loader reports no slow connects: the machine's ListenOverflows, which a full
    // queue always raises, must then say it.)
    const bool overflowed = context.slow_connects > 0 || k.listen_overflows > 0;
    if (k.listen_drops > 0 && overflowed) {
      flag(round, "listen-overflow",
           "the kernel dropped " + with_commas(k.listen_drops) +
               " connections at this server's full listen queue: clients waited for SYN "
               "retransmits; latency here is the kernel's, not the server's");
    }
  } else if (k.listen_overflows > 0 || k.listen_drops > 0) {
    flag(round, "listen-overflow",
         "the kernel's listen queue overflowed " + with_commas(k.listen_overflows) + " times (" +
             with_commas(k.listen_drops) +
             " SYNs dropped): clients waited for SYN retransmits; latency here is the kernel's, "
             "not the server's");
  }
}

// Connects that needed a SYN sent again, and requests lost to resets.
void judge_syns_and_resets(RoundFigures& round, const PointContext& context) {
  const KernelFigures& k = round.kernel;
  if (context.slow_connects >= 0) {
    if (context.slow_connects > 0) {
      flag(round, "syn-retransmits",
           with_commas(static_cast<std::uint64_t>(context.slow_connects)) +
               " of the loader's connections took a second or more to open: their first SYN "
               "went unanswered and was sent again (the machine counted " +
               with_commas(k.syn_retransmits) + " SYN retransmits)");
    }
  } else if (k.syn_retransmits > 0) {
    flag(round, "syn-retransmits",
         with_commas(k.syn_retransmits) +
             " SYNs were sent again: those connections took a second or more to open");
  }
  if (context.loader_resets >= 0) {
    if (context.loader_resets > 0) {
      flag(round, "resets",
           with_commas(static_cast<std::uint64_t>(context.loader_resets)) +
               " requests were lost to connections the server reset (the kernel sent " +
               with_commas(k.resets_sent) + " resets machine-wide)");
    }
  } else if (k.resets_sent > 0 && lost_to_resets(round) > 0) {
    // Resets that cost the loader no request are not the server's: a loader that stops with
    // requests in flight (wrk at the end of its duration) closes those connections with one.
    flag(round, "resets",
         "the kernel sent " + with_commas(k.resets_sent) +
             " TCP resets during the point (a machine-wide count) and the loader lost " +
             with_commas(lost_to_resets(round)) +
             " requests to errors a reset causes: connections were refused or torn down, this "
             "server's or another program's");
  }
}

void judge_kernel(RoundFigures& round, const PointContext& context) {
  judge_listen_queue(round, context);
  judge_syns_and_resets(round, context);
  const KernelFigures& k = round.kernel;
  if (context.mode == LoadMode::kClosed && context.connections_counted &&
      k.established_peak < context.connections) {
    flag(round, "connections-missing",
         "the server had at most " + with_commas(k.established_peak) + " of " +
             with_commas(context.connections) +
             " connections established: the rest waited in its listen queue or were refused, so "
             "this is not a " + with_commas(context.connections) + "-connection point");
  }
}

// Other tasks on the server's CPUs: the server ran slower than it would alone.
void judge_server_cpus(RoundFigures& round, const PointContext& context) {
  const ServerCpuFigures& c = round.server_cpus;
  if (!(std::isfinite(c.others_share) && c.others_share >= kStarvedShare)) return;
  const double capacity = round.server_cpus.others_s / c.others_share;  // duration x CPUs
  std::string who;
  for (const ProcessShare& other : c.others) {
    if (!(other.cpu_s > 0)) continue;
    who += (who.empty() ? ": " : ", ") + other.name + " " + percent(other.cpu_s / capacity);
  }
  std::string note = "other processes used " + percent(c.others_share) + " of " +
                     (context.server_cpus.empty() ? std::string("the server's CPUs")
                                                  : cpus_phrase(context.server_cpus)) +
                     " during this round" + who;
  if (c.steal_s > 0) note += "; the hypervisor stole " + percent(c.steal_s / capacity);
  if (std::isfinite(c.wait_s) && round.duration_s > 0) {
    note += "; the server's threads waited for a CPU " + percent(c.wait_s / round.duration_s) +
            " of the time";
  }
  flag(round, "server-starved",
       note + ": the server did not have its CPUs to itself, so its figures here are low; keep "
              "other work off the server CPUs (the CPU shield does, when run as root)");
}

std::string short_rate(double rate) {
  char text[32];
  if (rate >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", rate / 1e6);
  } else if (rate >= 1e4) {
    std::snprintf(text, sizeof text, "%.1fk", rate / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f", rate);
  }
  return text;
}

// Nothing else used the server's CPUs: the spread is the server's own or the machine's. With the
// loader at its core's limit in most rounds the point measured both together, and such points
// move in phases of the host's (docs/benchmarks.md, "what moves a point's throughput").
std::string quiet_cpus_note(const PointResult& point, double most_others) {
  std::size_t busy = 0;
  for (const RoundFigures& round : point.rounds) {
    if (std::isfinite(round.loader_cpu_share) && round.loader_cpu_share >= kLoaderBusyShare) ++busy;
  }
  std::string note = "; nothing else used the server's CPUs (at most " + percent(most_others) +
                     " in a round)";
  if (2 * busy > point.rounds.size()) {
    return note + ", but the loader was at its cores' limit in " + std::to_string(busy) + " of " +
           std::to_string(point.rounds.size()) +
           " rounds: the point measured server and loader together, and on a shared host both "
           "run faster or slower for tens of seconds at a time (docs/benchmarks.md); its CPU per "
           "request is the steadier figure";
  }
  return note + ": the spread is the server's own, or the machine's (frequency, caches, memory "
                "bandwidth shared with the loader)";
}

// Why a point did not converge, as far as the run can tell: how its rounds spread, and whether
// anything else took the server's CPUs in the round that used them most.
std::string noise_note(const PointResult& point, const StoppingRule& rule) {
  const Interval& interval = point.requests_per_s_interval;
  std::string note = std::to_string(point.rounds.size()) + " rounds from " +
                     short_rate(point.requests_per_s_min) + " to " +
                     short_rate(point.requests_per_s_max) + " requests/s: the median " +
                     short_rate(point.median.requests_per_s) + " is not known to within +-" +
                     percent(rule.target) + " (its " + percent(interval.confidence) +
                     " interval is " + short_rate(interval.low) + "-" + short_rate(interval.high) + ")";
  const RoundFigures* busiest = nullptr;
  for (const RoundFigures& round : point.rounds) {
    if (std::isfinite(round.server_cpus.others_share) &&
        (busiest == nullptr || round.server_cpus.others_share > busiest->server_cpus.others_share)) {
      busiest = &round;
    }
  }
  if (busiest == nullptr) return note;
  const ServerCpuFigures& c = busiest->server_cpus;
  if (c.others_share < 0.02) return note + quiet_cpus_note(point, c.others_share);
  std::string who;
  const double capacity = c.others_s / c.others_share;
  for (const ProcessShare& other : c.others) {
    who += (who.empty() ? ": " : ", ") + other.name + " " + percent(other.cpu_s / capacity);
  }
  return note + "; other processes used up to " + percent(c.others_share) +
         " of the server's CPUs (round " + std::to_string(busiest->round) + who + ")";
}

}  // namespace

void judge_round(RoundFigures& round, const PointContext& context) {
  judge_loader(round, context);
  judge_kernel(round, context);
  judge_server_cpus(round, context);
}

bool could_not_carry(const PointResult& point) {
  const RoundFigures& m = point.median;
  if (!std::isfinite(m.target_rate) || !std::isfinite(m.requests_per_s) ||
      m.requests_per_s >= m.target_rate * (1 - kOpenShortfall)) {
    return false;
  }
  return std::any_of(point.rounds.begin(), point.rounds.end(), [](const RoundFigures& round) {
    return std::find(round.flags.begin(), round.flags.end(), "server-bound") != round.flags.end();
  });
}

double median_of(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(),
                              [](double v) { return !std::isfinite(v); }),
               values.end());
  if (values.empty()) return kUnmeasured;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<RoundFigures> rounds_for_medians(const std::vector<RoundFigures>& rounds) {
  std::vector<RoundFigures> clean;
  for (const RoundFigures& round : rounds) {
    if (std::find(round.flags.begin(), round.flags.end(), "server-starved") == round.flags.end()) {
      clean.push_back(round);
    }
  }
  return !clean.empty() && 2 * clean.size() >= rounds.size() ? clean : rounds;
}

namespace {

// Each figure the median over `rounds`, counts rounded; one line per figure, so long by nature.
RoundFigures median_figures(const std::vector<RoundFigures>& rounds) {
  auto median = [&](const std::function<double(const RoundFigures&)>& get) {
    std::vector<double> values;
    for (const RoundFigures& round : rounds) values.push_back(get(round));
    return median_of(values);
  };
  auto median_count = [&](const std::function<std::uint64_t(const RoundFigures&)>& get) {
    const double value = median([&](const RoundFigures& r) { return static_cast<double>(get(r)); });
    return std::isfinite(value) ? static_cast<std::uint64_t>(std::llround(value)) : 0;
  };
  RoundFigures m;
  m.round = 0;
  m.duration_s = median([](const auto& r) { return r.duration_s; });
  m.completed = median_count([](const auto& r) { return r.completed; });
  m.failed = median_count([](const auto& r) { return r.failed; });
  m.requests_per_s = median([](const auto& r) { return r.requests_per_s; });
  m.target_rate = median([](const auto& r) { return r.target_rate; });
  m.latency.p50 = median([](const auto& r) { return r.latency.p50; });
  m.latency.p90 = median([](const auto& r) { return r.latency.p90; });
  m.latency.p99 = median([](const auto& r) { return r.latency.p99; });
  m.latency.p999 = median([](const auto& r) { return r.latency.p999; });
  m.latency.p9999 = median([](const auto& r) { return r.latency.p9999; });
  m.latency.max = median([](const auto& r) { return r.latency.max; });
  m.latency.mean = median([](const auto& r) { return r.latency.mean; });
  m.server_cpu_s = median([](const auto& r) { return r.server_cpu_s; });
  m.server_cpu_us_per_request = median([](const auto& r) { return r.server_cpu_us_per_request; });
  m.loader_cpu_s = median([](const auto& r) { return r.loader_cpu_s; });
  m.loader_cpu_share = median([](const auto& r) { return r.loader_cpu_share; });
  m.loader_wait_s = median([](const auto& r) { return r.loader_wait_s; });
  m.rss_peak_kib = median([](const auto& r) { return r.rss_peak_kib; });
  m.rss_mean_kib = median([](const auto& r) { return r.rss_mean_kib; });
  m.kernel.listen_overflows = median_count([](const auto& r) { return r.kernel.listen_overflows; });
  m.kernel.listen_drops = median_count([](const auto& r) { return r.kernel.listen_drops; });
  m.kernel.syn_retransmits = median_count([](const auto& r) { return r.kernel.syn_retransmits; });
  m.kernel.resets_sent = median_count([](const auto& r) { return r.kernel.resets_sent; });
  m.kernel.established_peak = median_count([](const auto& r) { return r.kernel.established_peak; });
  m.database.cpu_s = median([](const auto& r) { return r.database.cpu_s; });
  m.database.cpu_us_per_request = median([](const auto& r) { return r.database.cpu_us_per_request; });
  m.database.queries = median([](const auto& r) { return r.database.queries; });
  m.database.queries_per_request = median([](const auto& r) { return r.database.queries_per_request; });
  m.database.cpu_us_per_query = median([](const auto& r) { return r.database.cpu_us_per_query; });
  std::set<std::string> status_keys, error_keys;
  for (const RoundFigures& round : rounds) {
    for (const auto& [key, count] : round.statuses) status_keys.insert(key);
    for (const auto& [key, count] : round.errors) error_keys.insert(key);
  }
  for (const std::string& key : status_keys) {
    m.statuses[key] = median_count([&](const auto& r) {
      auto found = r.statuses.find(key);
      return found == r.statuses.end() ? std::uint64_t{0} : found->second;
    });
  }
  for (const std::string& key : error_keys) {
    m.errors[key] = median_count([&](const auto& r) {
      auto found = r.errors.find(key);
      return found == r.errors.end() ? std::uint64_t{0} : found->second;
    });
  }
  return m;
}

// Every round's flags, the left-out ones too, each with its first note.
void add_every_flag(const std::vector<RoundFigures>& all, RoundFigures& m) {
  for (const RoundFigures& round : all) {
    for (std::size_t i = 0; i < round.flags.size(); ++i) {
      if (std::find(m.flags.begin(), m.flags.end(), round.flags[i]) != m.flags.end()) continue;
      m.flags.push_back(round.flags[i]);
      m.notes.push_back(i < round.notes.size() ? round.notes[i] : "");
    }
  }
}

// The median round's histogram stands for the point (every round's log stays in the folder);
// and the spread of requests/s.
void take_median_round(const std::vector<RoundFigures>& rounds, RoundFigures& m, PointResult& point) {
  double best_distance = INFINITY;
  double low = INFINITY, high = -INFINITY;
  for (const RoundFigures& round : rounds) {
    if (!std::isfinite(round.requests_per_s)) continue;
    low = std::min(low, round.requests_per_s);
    high = std::max(high, round.requests_per_s);
    const double distance = std::fabs(round.requests_per_s - m.requests_per_s);
    if (distance < best_distance) {
      best_distance = distance;
      m.histogram_log = round.histogram_log;
      m.generators = round.generators;
    }
  }
  point.requests_per_s_min = std::isfinite(low) ? low : kUnmeasured;
  point.requests_per_s_max = std::isfinite(high) ? high : kUnmeasured;
}

// The server-starved rounds left out of the medians, named in that flag's note.
void note_left_out(PointResult& point, RoundFigures& m) {
  std::string which;
  for (const RoundFigures& round : point.rounds) {
    if (std::find(round.flags.begin(), round.flags.end(), "server-starved") == round.flags.end()) continue;
    point.left_out.push_back(round.round);
    which += (which.empty() ? "" : ", ") + std::to_string(round.round);
  }
  const auto at = static_cast<std::size_t>(
      std::find(m.flags.begin(), m.flags.end(), "server-starved") - m.flags.begin());
  std::string note = point.left_out.size() > 1 ? "rounds " : "round ";
  note += which;
  note += " of ";
  note += std::to_string(point.rounds.size());
  note += " left out of the medians (the others had the server's CPUs to themselves): ";
  note += m.notes[at];
  m.notes[at] = std::move(note);
}

}  // namespace

void summarize_point(PointResult& point, const StoppingRule& rule) {
  if (point.rounds.empty()) return;
  const std::vector<RoundFigures> rounds = rounds_for_medians(point.rounds);
  RoundFigures m = median_figures(rounds);
  add_every_flag(point.rounds, m);
  take_median_round(rounds, m, point);
  point.left_out.clear();
  if (rounds.size() < point.rounds.size()) note_left_out(point, m);
  point.median = m;
  std::vector<double> rates, cpu;
  for (const RoundFigures& round : rounds) {
    rates.push_back(round.requests_per_s);
    cpu.push_back(round.server_cpu_us_per_request);
  }
  point.requests_per_s_interval = median_interval(rates, rule.confidence);
  point.cpu_us_per_request_interval = median_interval(cpu, rule.confidence);
  point.noisy = std::isfinite(point.requests_per_s_interval.low) &&
                !converged(point.requests_per_s_interval, m.requests_per_s, rule);
  point.noisy_note = point.noisy ? noise_note(point, rule) : "";
  point.could_not_carry = could_not_carry(point);
}

bool point_converged(const PointResult& point, const StoppingRule& rule) {
  std::vector<double> rates;
  for (const RoundFigures& round : rounds_for_medians(point.rounds)) rates.push_back(round.requests_per_s);
  return converged(median_interval(rates, rule.confidence), median_of(rates), rule);
}

std::string with_commas(std::uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string text;
  text.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text.push_back(',');
    text.push_back(digits[i]);
  }
  return text;
}

}  // namespace ringside::harness
