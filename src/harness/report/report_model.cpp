#include "harness/report/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "harness/report/report_format.hpp"

namespace ringside::harness {
namespace {

constexpr std::string_view kShieldPrefix = "CPU shield: ";

struct FlagMeaning {
  const char* flag;
  const char* meaning;
};

// What each flag of the engine means, for readers and for a flag without its own note.
constexpr FlagMeaning kFlagMeanings[] = {
    {"loader-bound",
     "the load generator, not the server, was the limit (its CPU saturated, an open-model rate "
     "fell short, or Little's law did not hold): the point says nothing about the server"},
    {"listen-overflow",
     "the kernel's listen queue overflowed: connection attempts were dropped before the server "
     "saw them, and the clients' retries show up as latency"},
    {"listen-drops", "the kernel dropped connection attempts at the listening socket"},
    {"syn-retransmits",
     "connection attempts had to be retransmitted (a second or more each): the tail latency is "
     "the kernel's retry timer, not the server's handling"},
    {"resets", "connections were reset during the point"},
    {"short-of-rate",
     "the open model did not reach the rate it asked for: latencies are at a lower load than "
     "the heading says"},
    {"errors", "some requests failed or were answered with a status other than 2xx"},
    {"noisy",
     "the point did not converge: its median's interval stayed wider than the run's target when "
     "its rounds ended, so a difference smaller than that interval is not a real difference"},
    {"failed", "the contestant failed at this point: nothing was measured"},
};

// The same point's label in the verdict: "nginx via wrk" when the workload compares loaders.
std::string place_in(const Ranking& ranking, const PointResult& p) {
  const std::string via = place_of(ranking, p.contestant + " via " + std::string(loader_name(p.loader)));
  return via.empty() ? place_of(ranking, p.contestant) : via;
}

bool same_group(const PointResult& p, const PointGroupKey& key) {
  if (p.workload != key.workload || p.mode != key.mode || p.loader != key.loader) return false;
  if (p.mode == LoadMode::kOpen)
    return p.rate == key.rate || (!std::isfinite(p.rate) && !std::isfinite(key.rate));
  return p.connections == key.connections;
}

std::vector<PointGroupKey> groups_of(const RunResults& results, const std::string& workload) {
  std::vector<PointGroupKey> keys;
  for (const PointResult& p : results.points) {
    if (p.workload != workload) continue;
    const bool known = std::any_of(keys.begin(), keys.end(),
                                   [&](const PointGroupKey& k) { return same_group(p, k); });
    if (!known)
      keys.push_back({p.workload, p.mode, p.connections, p.mode == LoadMode::kOpen ? p.rate : 0, p.loader});
  }
  // Closed levels ascending, then the equal-load points: the order a reader follows.
  std::stable_sort(keys.begin(), keys.end(), [](const PointGroupKey& a, const PointGroupKey& b) {
    const bool a_open = a.mode == LoadMode::kOpen, b_open = b.mode == LoadMode::kOpen;
    if (a_open != b_open) return !a_open;
    const double a_level = a_open ? a.rate : a.connections,
                 b_level = b_open ? b.rate : b.connections;
    // By the loader's name, as the report has always listed them.
    return std::make_tuple(a_level, loader_name(a.loader)) <
           std::make_tuple(b_level, loader_name(b.loader));
  });
  return keys;
}

std::size_t contestant_rank(const RunResults& results, const std::string& name) {
  for (std::size_t i = 0; i < results.contestants.size(); ++i) {
    if (results.contestants[i].name == name) return i;
  }
  return results.contestants.size();
}

const ContestantResult* find_contestant(const RunResults& results, const std::string& name) {
  for (const ContestantResult& c : results.contestants) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string errors_cell(const RoundFigures& figures) {
  const std::uint64_t total = error_total(figures);
  if (total == 0) return "0";
  std::string detail;
  for (const auto& [kind, count] : figures.errors) {
    if (count == 0) continue;
    detail += (detail.empty() ? "" : ", ") + kind + " " + format_count(count);
  }
  for (const auto& [status, count] : figures.statuses) {
    if (status.empty() || status[0] == '2' || count == 0) continue;
    detail +=
        (detail.empty() ? "" : ", ") + std::string("HTTP ") + status + " " + format_count(count);
  }
  return format_count(total) + (detail.empty() ? "" : " (" + detail + ")");
}

// How far the median's interval reaches from it, relative to it.
double largest_spread(const PointResult& point) {
  const double median = point.median.requests_per_s;
  if (!std::isfinite(median) || median <= 0) return kUnmeasured;
  const Span span = requests_per_s_span(point);
  double spread = 0;
  if (std::isfinite(span.low)) spread = std::max(spread, (median - span.low) / median);
  if (std::isfinite(span.high)) spread = std::max(spread, (span.high - median) / median);
  return spread;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(const RunResults& results)
      : results_(results), verdict_(decide_verdict(results)) {}

  ReportModel build() {
    describe_run();
    model_.verdict_rule = verdict_rule_text();
    model_.verdict = verdict_blocks(verdict_);
    for (std::size_t i = 0; i < model_.verdict.size(); ++i) {
      const std::string warned = fairness_in_verdict(results_, verdict_.workloads[i]);
      if (!warned.empty()) {
        model_.verdict[i].lines.push_back(
            {"fairness warnings", {{warned + ": see Fairness warnings below", false}}});
      }
    }
    model_.fairness = fairness_lines(results_);
    for (const std::string& workload : workload_order(results_))
      model_.workloads.push_back(section(workload));
    explain_flags();
    model_.errors = errors_table();
    describe_contestants();
    describe_machine();
    describe_workloads();
    return std::move(model_);
  }

 private:
  void describe_run() {
    const RunResults& r = results_;
    model_.title =
        "ringside compare: " + (r.scenario_name.empty() ? std::string("results") : r.scenario_name);
    std::string run =
        "Scenario " + (r.scenario_name.empty() ? std::string("(unnamed)") : r.scenario_name);
    if (!r.scenario_file.empty()) run += " (" + r.scenario_file + ")";
    if (!r.started_at.empty())
      run += ", run from " + r.started_at + " to " + (r.finished_at.empty() ? "?" : r.finished_at);
    if (!r.ringside_version.empty()) run += " by ringside " + r.ringside_version;
    model_.preamble.push_back(run + ".");
    std::string method = "Each figure is the median of " + std::to_string(r.rounds) +
                         (r.rounds == 1 ? " round" : " rounds") +
                         "; in brackets, the interval of requests/s: the median's confidence "
                         "interval (the rounds' min–max in results that have none)";
    if (has_baseline()) {
      method += "; ratios are against " + r.baseline +
                " (closed model: its requests/s; equal load: its p99 latency)";
    }
    model_.preamble.push_back(method + ".");
    model_.preamble.push_back(
        "Closed model: a fixed number of connections sending as fast as the server answers. Open "
        "model (equal load): every contestant offered the same request rate, latency corrected "
        "for coordinated omission, so latency and CPU per request compare at the same load.");
    if (r.partial) {
      model_.alerts.push_back(
          "Partial run: it was stopped before every point ran; only the points measured are "
          "shown.");
    }
    if (!r.baseline.empty() && !has_baseline()) {
      model_.alerts.push_back("The baseline " + r.baseline +
                              " has no measured point: the ratio columns are left out.");
    }
  }

  bool has_baseline() const {
    if (results_.baseline.empty()) return false;
    return std::any_of(results_.points.begin(), results_.points.end(), [&](const PointResult& p) {
      return p.contestant == results_.baseline && p.failure.empty();
    });
  }

  WorkloadSection section(const std::string& workload) {
    WorkloadSection section;
    section.name = workload;
    section.heading = workload;
    for (const WorkloadInfo& w : results_.workloads) {
      if (w.name == workload && !w.path.empty()) {
        section.heading += ": " + w.method + " " + w.path + over_text(w.protocol, w.streams);
      }
    }
    for (const PointGroupKey& key : groups_of(results_, workload))
      section.tables.push_back(group_table(key));
    return section;
  }

  std::vector<const PointResult*> group_points(const PointGroupKey& key) const {
    std::vector<const PointResult*> points;
    for (const PointResult& p : results_.points) {
      if (same_group(p, key)) points.push_back(&p);
    }
    std::stable_sort(points.begin(), points.end(), [&](const PointResult* a, const PointResult* b) {
      return contestant_rank(results_, a->contestant) < contestant_rank(results_, b->contestant);
    });
    return points;
  }

  ReportTable group_table(const PointGroupKey& key) {
    const bool open = key.mode == LoadMode::kOpen;
    const std::vector<const PointResult*> points = group_points(key);
    ReportTable table;
    table.id = "summary-" + key.workload + "-" +
               (open ? "open" + std::to_string(static_cast<long long>(std::llround(key.rate)))
                     : "c" + std::to_string(key.connections)) +
               (key.loader == LoaderKind::kRingside ? "" : "-" + std::string(loader_name(key.loader)));
    table.heading =
        open ? "Equal load: " + describe_point(*points.front()) : describe_point(*points.front());
    table.columns = {"contestant", "req/s",   "interval", "p50",
                     "p99",        "max",     "errors",   "CPU/req",
                     memory_heading("idle RSS"), memory_heading("peak RSS"), "flags"};
    table.numeric = {false, true, true, true, true, true, true, true, true, true, false};
    // The database's share of each request, beside the server's, where one was measured.
    const bool database = std::any_of(points.begin(), points.end(),
                                      [](const PointResult* p) { return database_worked(*p); });
    if (database) {
      table.columns.insert(table.columns.begin() + 8, {"DB CPU/req", "queries/req"});
      table.numeric.insert(table.numeric.begin() + 8, {true, true});
    }
    const bool ratios = has_baseline();
    if (ratios) {
      table.columns.push_back((open ? "p99 vs " : "req/s vs ") + results_.baseline);
      table.numeric.push_back(true);
    }
    const PointResult* base = nullptr;
    for (const PointResult* p : points) {
      if (p->contestant == results_.baseline && p->failure.empty()) base = p;
    }
    for (const PointResult* p : points) {
      std::vector<std::string> row = point_row(*p, base, open, ratios);
      if (database) {
        const DatabaseFigures& d = p->median.database;
        const bool shown = p->failure.empty();
        row.insert(row.begin() + 8,
                   {shown ? format_cpu_per_request(d.cpu_us_per_request) : std::string(kUnmeasuredText),
                    shown && std::isfinite(d.queries_per_request)
                        ? format_queries_per_request(d.queries_per_request)
                        : std::string(kUnmeasuredText)});
      }
      table.rows.push_back(std::move(row));
    }
    if (!open) add_places(table, points, key.connections);
    return table;
  }

  // The verdict at this level, as the table's first column: "1", "2=" (a tie), "" (not ranked).
  void add_places(ReportTable& table, const std::vector<const PointResult*>& points,
                  unsigned connections) const {
    const LevelVerdict* level = level_verdict(points.front()->workload, connections);
    table.columns.insert(table.columns.begin(), "rank");
    table.numeric.insert(table.numeric.begin(), true);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string place =
          level != nullptr ? place_in(level->throughput, *points[i]) : std::string();
      table.rows[i].insert(table.rows[i].begin(), place);
    }
  }

  const LevelVerdict* level_verdict(const std::string& workload, unsigned connections) const {
    for (const WorkloadVerdict& w : verdict_.workloads) {
      if (w.workload != workload) continue;
      for (const LevelVerdict& level : w.by_level) {
        if (level.connections == connections) return &level;
      }
    }
    return nullptr;
  }

  std::vector<std::string> point_row(const PointResult& p, const PointResult* base, bool open,
                                     bool ratios) {
    const ContestantResult* contestant = find_contestant(results_, p.contestant);
    const double idle = contestant != nullptr ? contestant->rss_idle_kib : kUnmeasured;
    const std::string dash(kUnmeasuredText);
    std::vector<std::string> row;
    if (!p.failure.empty()) {
      row = {p.contestant,        "failed", dash,         dash, dash, dash, dash, dash,
             format_memory(idle), dash,     flags_cell(p)};
    } else {
      const RoundFigures& m = p.median;
      row = {p.contestant,
             format_rate(m.requests_per_s),
             format_rate_span(requests_per_s_span(p)).empty()
                 ? dash
                 : format_rate_span(requests_per_s_span(p)),
             format_latency(m.latency.p50),
             format_latency(m.latency.p99),
             format_latency(m.latency.max),
             errors_cell(m),
             format_cpu_per_request(m.server_cpu_us_per_request),
             format_memory(idle),
             format_memory(m.rss_peak_kib),
             flags_cell(p)};
    }
    if (ratios) {
      RatioCall call;
      if (base != nullptr && p.failure.empty()) {
        call = open ? call_ratio(p.median.latency.p99, p99_span(p), base->median.latency.p99,
                                 p99_span(*base))
                    : call_ratio(p.median.requests_per_s, requests_per_s_span(p),
                                 base->median.requests_per_s, requests_per_s_span(*base));
        if (&p == base) call.tie = false;  // the baseline against itself: 1.00×, no tie to call
      }
      // At one offered rate, a contestant that could not carry it has no p99 at that rate.
      if (open && p.could_not_carry && p.failure.empty()) {
        row.push_back("could not carry " + format_rate(p.rate) + "/s");
      } else if (open && base != nullptr && base->could_not_carry && &p != base) {
        row.push_back(dash);
      } else {
        row.push_back(format_ratio_call(call));
      }
    }
    return row;
  }

  // "loader-bound [3], noisy [4]": each flag numbered into the notes.
  std::string flags_cell(const PointResult& p) {
    std::string cell;
    const std::vector<std::string> flags = point_flags(p);
    for (const std::string& flag : flags) {
      const std::string where = p.workload + ", " + describe_point(p) + ", " + p.contestant;
      const std::string text = note_text(p, flag);
      // The same sentence again (a failed contestant's later points) shares one note.
      auto same = std::find_if(model_.notes.begin(), model_.notes.end(), [&](const ReportNote& n) {
        return n.flag == flag && n.text == text;
      });
      if (same != model_.notes.end()) {
        same->where += "; " + where;
      } else {
        model_.notes.push_back({static_cast<int>(model_.notes.size()) + 1, where, flag, text});
        same = model_.notes.end() - 1;
      }
      seen_flags_.push_back(flag);
      cell += (cell.empty() ? "" : ", ") + flag + " [" + std::to_string(same->number) + "]";
    }
    return cell;
  }

  static std::string note_text(const PointResult& p, const std::string& flag) {
    if (flag == "failed") return p.failure;
    if (flag == "noisy" && !p.noisy_note.empty()) return p.noisy_note;  // what took the CPU, too
    if (flag == "noisy") {
      return "it did not converge: requests/s " + format_rate(p.median.requests_per_s) + " " +
             format_rate_span(requests_per_s_span(p)) + ", up to " +
             format_change(largest_spread(p)).substr(1) +
             " from the median: a difference smaller than that is not a real difference";
    }
    const std::vector<std::string>& flags = p.median.flags;
    const auto at = std::find(flags.begin(), flags.end(), flag);
    const std::size_t index = static_cast<std::size_t>(at - flags.begin());
    if (at != flags.end() && index < p.median.notes.size() && !p.median.notes[index].empty()) {
      return p.median.notes[index];
    }
    return flag_meaning(flag);
  }

  void explain_flags() {
    std::vector<std::string> done;
    for (const std::string& flag : seen_flags_) {
      if (std::find(done.begin(), done.end(), flag) != done.end()) continue;
      done.push_back(flag);
      model_.flag_meanings.push_back(flag + ": " + flag_meaning(flag));
    }
  }

  ReportTable errors_table() const {
    ReportTable table;
    table.id = "errors";
    table.heading = "Errors and what the kernel did";
    table.columns = {"workload",          "point",           "contestant",
                     "transport errors",  "non-2xx",         "listen overflows",
                     "listen drops",      "SYN retransmits", "resets sent",
                     "established (peak)"};
    table.numeric = {false, false, false, true, true, true, true, true, true, true};
    for (const std::string& workload : workload_order(results_)) {
      for (const PointGroupKey& key : groups_of(results_, workload)) {
        for (const PointResult* p : group_points(key)) {
          const RoundFigures& m = p->median;
          const KernelFigures& k = m.kernel;
          const std::uint64_t non_2xx = error_total(m) - m.failed;
          if (!p->failure.empty()) continue;
          if (error_total(m) == 0 && k.listen_overflows == 0 && k.listen_drops == 0 &&
              k.syn_retransmits == 0 && k.resets_sent == 0) {
            continue;
          }
          std::string transport = format_count(m.failed);
          std::string classes;
          for (const auto& [kind, count] : m.errors) {
            if (count != 0)
              classes += (classes.empty() ? "" : ", ") + kind + " " + format_count(count);
          }
          if (!classes.empty()) transport += " (" + classes + ")";
          table.rows.push_back({workload, describe_point(*p), p->contestant, transport,
                                format_count(non_2xx), format_count(k.listen_overflows),
                                format_count(k.listen_drops), format_count(k.syn_retransmits),
                                format_count(k.resets_sent), format_count(k.established_peak)});
        }
      }
    }
    return table;
  }

  void describe_contestants() {
    ReportTable& table = model_.contestants;
    table.id = "contestants";
    table.heading = "Contestants";
    table.columns = {"contestant", "description", "runtime", "version", "threads", "status",
                     "fairness", memory_heading("idle RSS"), memory_heading("RSS after")};
    table.numeric = {false, false, false, false, true, false, false, true, true};
    for (const ContestantResult& c : results_.contestants) {
      const std::string warned = fairness_checks(c);
      table.rows.push_back(
          {c.name, c.description, c.runtime,
           c.version.empty() ? std::string(kUnmeasuredText) : c.version,
           c.threads == 0 ? std::string(kUnmeasuredText) : std::to_string(c.threads), std::string(status_name(c.status)),
           !warned.empty() ? "WARN " + warned : c.status == ContestantStatus::kRan ? "ok" : std::string(kUnmeasuredText),
           format_memory(c.rss_idle_kib), format_memory(c.rss_after_kib)});
      // One that ran names the workloads it was not given; one skipped for them says so once.
      if (c.status == ContestantStatus::kRan) {
        for (const WorkloadSkip& skip : c.skipped_workloads) {
          model_.contestant_details.push_back(c.name + " skipped " + skip.workload + ": " + skip.reason);
        }
        continue;
      }
      std::string detail = c.name + " " + std::string(status_name(c.status)) + ": " + (c.reason.empty() ? "no reason recorded" : c.reason);
      if (!c.last_output.empty()) detail += ". Last output: " + c.last_output;
      model_.contestant_details.push_back(detail);
    }
  }

  void describe_machine() {
    const MachineFacts& m = results_.machine;
    ReportTable& table = model_.machine;
    table.id = "machine";
    table.heading = "Machine";
    table.columns = {"fact", "value"};
    table.numeric = {false, false};
    const std::string dash(kUnmeasuredText);
    table.rows = {
        {"CPU", m.cpu_model.empty() ? dash : m.cpu_model},
        {"cores", m.cores == 0 ? dash : std::to_string(m.cores)},
        {"kernel", m.kernel.empty() ? dash : m.kernel},
        {"memory", m.memory_kib == 0 ? dash : format_memory_with_unit(static_cast<double>(m.memory_kib))},
        {"frequency governor", m.governor.empty() ? "not visible" : m.governor},
        {"server CPUs", m.server_cpus.empty() ? "any" : m.server_cpus},
        {"loader CPUs", m.load_cpus.empty() ? "any" : m.load_cpus},
        {"CPU shield", shield_summary(results_.shield, m.server_cpus).substr(kShieldPrefix.size())},
    };
    model_.warnings = m.warnings;
    model_.load_hosts = load_hosts_table(results_);
    for (std::string& warning : load_host_warnings(results_)) model_.warnings.push_back(std::move(warning));
  }

  void describe_workloads() {
    ReportTable& table = model_.workload_list;
    table.id = "workloads";
    table.heading = "Workloads";
    table.columns = {"workload", "request", "protocol", "mode", "loader"};
    table.numeric = {false, false, false, false, false};
    for (const WorkloadInfo& w : results_.workloads) {
      table.rows.push_back({w.name, w.method + " " + w.path, std::string(protocol_name(w.protocol)),
                            std::string(mode_name(w.mode)), std::string(loader_name(w.loader))});
    }
    model_.command =
        "ringside compare" +
        (results_.scenario_file.empty() ? std::string() : " " + results_.scenario_file);
  }

  const RunResults& results_;
  const Verdict verdict_;
  ReportModel model_;
  std::vector<std::string> seen_flags_;
};

}  // namespace

std::string shield_summary(const ShieldFacts& shield, const std::string& server_cpus) {
  std::string line(kShieldPrefix);
  if (!shield.requested) return line + "off (--no-shield)";
  if (!shield.active) {
    return line + "not possible: " + (shield.problem.empty() ? "no reason recorded" : shield.problem);
  }
  const bool several = server_cpus.find_first_of(",-") != std::string::npos;
  line += "moved " + std::to_string(shield.moved) + (shield.moved == 1 ? " task" : " tasks") +
          " off CPU" + (several ? "s " : " ") + server_cpus + " for the run";
  if (shield.unmovable > 0) {
    line += " (" + std::to_string(shield.unmovable) + " could not move";
    for (std::size_t i = 0; i < shield.unmovable_names.size(); ++i) {
      line += (i == 0 ? ": " : ", ") + shield.unmovable_names[i];
    }
    if (shield.unmovable > shield.unmovable_names.size()) line += ", ...";
    line += ")";
  }
  if (!shield.problem.empty()) line += "; " + shield.problem;
  return line;
}

std::string describe_point(const PointResult& point) {
  std::string text;
  if (point.mode == LoadMode::kOpen) {
    text = format_rate(point.rate) + " req/s offered (open model, " +
           format_count(point.connections) + " connections)";
  } else {
    text =
        format_count(point.connections) + (point.connections == 1 ? " connection" : " connections");
  }
  if (point.loader != LoaderKind::kRingside) text += " via " + std::string(loader_name(point.loader));
  return text;
}

std::string flag_meaning(const std::string& flag) {
  for (const FlagMeaning& m : kFlagMeanings) {
    if (flag == m.flag) return m.meaning;
  }
  return "flagged by the run engine; see the results' notes";
}

std::uint64_t error_total(const RoundFigures& figures) {
  std::uint64_t total = figures.failed;
  for (const auto& [status, count] : figures.statuses) {
    if (!status.empty() && status[0] != '2') total += count;
  }
  return total;
}

std::vector<std::string> point_flags(const PointResult& point) {
  std::vector<std::string> flags;
  auto add = [&](const std::string& flag) {
    if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
  };
  for (const std::string& flag : point.median.flags) add(flag);
  if (point.noisy) add("noisy");
  if (!point.failure.empty()) add("failed");
  return flags;
}

ReportModel build_report_model(const RunResults& results) {
  return ModelBuilder(results).build();
}

ReportTable load_hosts_table(const RunResults& results) {
  ReportTable table;
  table.id = "load-hosts";
  table.heading = "Load hosts";
  table.columns = {"host", "ssh destination", "clock offset (ms)", "round trip (ms)"};
  table.numeric = {false, false, true, true};
  auto ms = [](double seconds) {
    if (!std::isfinite(seconds)) return std::string(kUnmeasuredText);
    char text[32];
    std::snprintf(text, sizeof text, "%+.3f", seconds * 1e3);
    return std::string(text);
  };
  for (const LoadHostFacts& host : results.load_hosts) {
    std::string trip = ms(host.round_trip_s);
    if (!trip.empty() && trip.front() == '+') trip.erase(0, 1);
    table.rows.push_back({host.name, host.destination, ms(host.clock_offset_s), trip});
  }
  return table;
}

std::string fairness_checks(const ContestantResult& contestant) {
  std::string checks;
  for (const ContestantWarning& warning : contestant.warnings) {
    if (checks.find(warning.check) != std::string::npos) continue;
    checks += (checks.empty() ? "" : ", ") + warning.check;
  }
  return checks;
}

std::vector<std::string> fairness_lines(const RunResults& results) {
  std::vector<std::string> lines;
  for (const ContestantResult& contestant : results.contestants) {
    for (const ContestantWarning& warning : contestant.warnings) {
      lines.push_back(contestant.name + ": " + warning.check + ": " + warning.message);
    }
  }
  return lines;
}

std::string fairness_in_verdict(const RunResults& results, const WorkloadVerdict& verdict) {
  std::vector<std::string> names;
  for (const Ranking* ranking : {&verdict.throughput, &verdict.cpu}) {
    for (const TieGroup& group : ranking->groups) {
      for (const RankedEntry& entry : group.entries) names.push_back(entry.contestant);
    }
    for (const Unranked& unranked : ranking->unranked) {  // "nginx via wrk": the contestant
      names.push_back(unranked.label.substr(0, unranked.label.find(" via ")));
    }
  }
  std::string text;
  for (const ContestantResult& contestant : results.contestants) {
    const std::string checks = fairness_checks(contestant);
    if (checks.empty() || std::find(names.begin(), names.end(), contestant.name) == names.end()) continue;
    text += (text.empty() ? "" : ", ") + contestant.name + " (" + checks + ")";
  }
  return text;
}

std::vector<std::string> load_host_warnings(const RunResults& results) {
  constexpr double kLimitS = 0.005;
  std::vector<std::string> warnings;
  char text[64];
  for (const LoadHostFacts& host : results.load_hosts) {
    if (!(std::fabs(host.clock_offset_s) > kLimitS)) continue;
    std::snprintf(text, sizeof text, "%.1f", host.clock_offset_s * 1e3);
    warnings.push_back("load host " + host.name + "'s clock is " + text +
                       " ms off the harness's: its load starts that far from the others'; sync "
                       "clocks with chrony or PTP");
  }
  // The latest start of each host over every round of every point.
  std::vector<std::pair<std::string, double>> late;
  for (const PointResult& point : results.points) {
    for (const RoundFigures& round : point.rounds) {
      for (const GeneratorFigures& g : round.generators) {
        if (!(g.start_late_s > kLimitS)) continue;
        auto found = std::find_if(late.begin(), late.end(), [&](const auto& e) { return e.first == g.name; });
        if (found == late.end()) {
          late.emplace_back(g.name, g.start_late_s);
        } else {
          found->second = std::max(found->second, g.start_late_s);
        }
      }
    }
  }
  for (const auto& [name, seconds] : late) {
    std::snprintf(text, sizeof text, "%.1f", seconds * 1e3);
    warnings.push_back("load host " + name + " began its measured phase up to " + text +
                       " ms after the start instant: raise [load] start_lead (ssh took longer to "
                       "start it than the lead)");
  }
  return warnings;
}

}  // namespace ringside::harness
