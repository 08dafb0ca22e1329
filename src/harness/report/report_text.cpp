#include "harness/report/report_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "harness/report/report_format.hpp"
#include "harness/report/report_model.hpp"
#include "harness/report/verdict.hpp"
#include "load/report.hpp"

namespace ringside::harness {
namespace {

using Row = std::vector<std::string>;

std::string latency_text(double micros) {
  return std::isfinite(micros) ? load::format_micros(micros) : "-";
}

std::string printf_text(const char* format, double value) {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

const PointResult* baseline_point(const RunResults& results, const PointResult& point) {
  for (const PointResult& other : results.points) {
    if (other.contestant == results.baseline && other.workload == point.workload &&
        other.mode == point.mode && other.connections == point.connections &&
        (point.mode == LoadMode::kClosed || other.rate == point.rate)) {
      return &other;
    }
  }
  return nullptr;
}

// Closed points compare throughput; open points (all at one rate) compare p99 latency.
std::string ratio_text(const RunResults& results, const PointResult& point) {
  const PointResult* base = baseline_point(results, point);
  if (base == nullptr || !base->failure.empty() || !point.failure.empty()) return "-";
  const bool closed = point.mode == LoadMode::kClosed;
  // At one offered rate, a contestant that could not carry it has no p99 at that rate.
  if (!closed && point.could_not_carry) return "could not carry " + format_rate(point.rate) + "/s";
  if (point.contestant == results.baseline) return "baseline";
  if (!closed && base->could_not_carry) return "-";
  const RatioCall call =
      closed ? call_ratio(point.median.requests_per_s, requests_per_s_span(point),
                          base->median.requests_per_s, requests_per_s_span(*base))
             : call_ratio(point.median.latency.p99, p99_span(point), base->median.latency.p99,
                          p99_span(*base));
  if (!std::isfinite(call.ratio)) return "-";
  return format_ratio(call.ratio, "x") + (closed ? "" : " p99") + (call.tie ? ", tie" : "");
}

std::string span_text(const Span& span, std::string (*format)(double)) {
  if (!std::isfinite(span.low) || !std::isfinite(span.high)) return "-";
  return "[" + format(span.low) + "-" + format(span.high) + "]";
}

std::string cpu_text(double micros) {
  return std::isfinite(micros) ? printf_text(micros < 100 ? "%.1f" : "%.0f", micros) : "-";
}

// One side of the verdict: place, name (* the baseline), figure, interval; then those apart.
std::vector<Row> ranking_rows(const Ranking& ranking, std::string (*format)(double)) {
  std::vector<Row> rows;
  for (const TieGroup& group : ranking.groups) {
    for (const RankedEntry& entry : group.entries) {
      rows.push_back({std::to_string(group.place) + (group.tie() ? "=" : ""),
                      entry.label + (entry.baseline ? "*" : ""), format(entry.score),
                      span_text(entry.span, format)});
    }
  }
  return rows;
}

std::vector<std::string> aligned(const std::vector<Row>& rows) {
  std::vector<std::size_t> widths(4, 0);
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<std::string> lines;
  for (const Row& row : rows) {
    std::string line = row[0] + std::string(widths[0] - row[0].size() + 1, ' ');
    line += row[1] + std::string(widths[1] - row[1].size() + 1, ' ');
    line += std::string(widths[2] - row[2].size(), ' ') + row[2] + " ";
    line += row[3] + std::string(widths[3] - row[3].size(), ' ');
    lines.push_back(line);
  }
  return lines;
}

// The answer first, two rankings side by side, under 100 columns for up to 20-letter names;
// under each workload's, those apart and those with fairness warnings.
std::string verdict_text(const RunResults& results, const Verdict& verdict) {
  if (verdict.workloads.empty()) return "";
  std::string text = "verdict: geometric mean over the closed levels, [low-high] its interval, "
                     "2= a tie" + std::string(verdict.baseline.empty() ? "" : ", * the baseline") +
                     "\n";
  for (const WorkloadVerdict& w : verdict.workloads) {
    std::string levels;
    for (unsigned level : w.levels) levels += (levels.empty() ? "" : ",") + std::to_string(level);
    const std::vector<std::string> left = aligned(ranking_rows(w.throughput, short_rate));
    const std::vector<std::string> right = aligned(ranking_rows(w.cpu, cpu_text));
    const std::size_t width = std::max<std::size_t>(left.empty() ? 0 : left[0].size(), 10);
    const std::string header = "req/s";
    text += "  " + w.workload + " at c=" + levels + "\n    " + header +
            std::string(width - header.size() + 4, ' ') + "CPU us/req (lower is better)\n";
    for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
      const std::string l = i < left.size() ? left[i] : std::string(width, ' ');
      std::string line = "    " + l + "    " + (i < right.size() ? right[i] : "");
      while (!line.empty() && line.back() == ' ') line.pop_back();
      text += line + "\n";
    }
    std::string apart;
    for (const Unranked& u : w.throughput.unranked)
      apart += (apart.empty() ? "" : ", ") + u.label + " (" + u.why + ")";
    if (!apart.empty()) text += "    not ranked: " + apart + "\n";
    const std::string warned = fairness_in_verdict(results, w);
    if (!warned.empty()) text += "    fairness warnings: " + warned + "\n";
  }
  return text;
}


std::string errors_text(const RoundFigures& figures) {
  std::uint64_t non_2xx = 0;
  for (const auto& [status, count] : figures.statuses) {
    if (status.empty() || status[0] != '2') non_2xx += count;
  }
  const std::uint64_t total = figures.failed + non_2xx;
  return total == 0 ? "0" : std::to_string(total);
}

std::string render_table(const std::vector<Row>& rows) {
  std::vector<std::size_t> widths;
  for (const Row& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string text;
  for (const Row& row : rows) {
    std::string line = "  ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::string cell = row[i];
      // Numbers right-aligned; the contestant's name and the flags left-aligned.
      const bool left = i == 0 || i + 1 == row.size();
      const std::string pad(widths[i] - cell.size(), ' ');
      line += left ? cell + pad : pad + cell;
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

// A closed point's place at its level ("1", "2="); "" for open points and those not ranked.
std::string place_at(const Verdict& verdict, const PointResult& point) {
  if (point.mode != LoadMode::kClosed) return "";
  for (const WorkloadVerdict& w : verdict.workloads) {
    if (w.workload != point.workload) continue;
    for (const LevelVerdict& level : w.by_level) {
      if (level.connections != point.connections) continue;
      const std::string via = place_of(level.throughput, point.contestant + " via " + std::string(loader_name(point.loader)));
      return via.empty() ? place_of(level.throughput, point.contestant) : via;
    }
  }
  return "";
}

const ContestantResult* contestant_named(const RunResults& results, const std::string& name) {
  for (const ContestantResult& contestant : results.contestants) {
    if (contestant.name == name) return &contestant;
  }
  return nullptr;
}

// What else used the server's CPUs in these points' rounds: the most any round saw, and by
// whom; or that nothing did, so the spread was the server's own or the machine's.
std::string neighbours_text(const std::vector<const PointResult*>& points) {
  double most = -1;
  const RoundFigures* busiest = nullptr;
  for (const PointResult* point : points) {
    for (const RoundFigures& round : point->rounds) {
      const double share = round.server_cpus.others_share;
      if (std::isfinite(share) && share > most) {
        most = share;
        busiest = &round;
      }
    }
  }
  if (busiest == nullptr) return "what else ran on the server's CPUs was not measured";
  const std::string percent = printf_text("%.0f%%", most * 100);
  if (most < 0.02) {
    return "nothing else used the server's CPUs in their rounds (at most " + percent +
           "): the spread is the servers' own, or the machine's (memory, caches, the host)";
  }
  std::string who;
  for (const ProcessShare& other : busiest->server_cpus.others) {
    who += (who.empty() ? ": " : ", ") + other.name;
  }
  return "other processes used up to " + percent + " of the server's CPUs in their rounds" + who;
}

}  // namespace

std::string short_rate(double value) {
  if (!std::isfinite(value)) return "-";
  if (value >= 1e6) return printf_text("%.2fM", value / 1e6);
  if (value >= 1e4) return printf_text("%.1fk", value / 1e3);
  return printf_text("%.0f", value);
}

std::string memory_text(double kib) {
  if (!std::isfinite(kib) || kib <= 0) return "-";
  return format_memory(kib);
}

namespace {

constexpr std::size_t kDatabaseColumns = 11;  // where "DB us/req" and "q/req" go, when shown

// One point's row of its workload's table.
Row point_row(const RunResults& results, const Verdict& verdict, const PointResult& point,
              bool database) {
  const ContestantResult* contestant = contestant_named(results, point.contestant);
  const std::string mode = point.mode == LoadMode::kOpen ? "open " + short_rate(point.rate) + "/s" : "closed";
  Row row;
  if (point.rounds.empty()) {
    row = {point.contestant, "", mode, std::to_string(point.connections), "failed", "", "",
           "", "", "", "", "", "", "", point.failure};
    if (database) row.insert(row.begin() + kDatabaseColumns, {"", ""});
    return row;
  }
  const RoundFigures& m = point.median;
  std::string flags;
  for (const std::string& flag : m.flags) flags += (flags.empty() ? "" : ",") + flag;
  if (point.noisy) flags += std::string(flags.empty() ? "" : ",") + "noisy";
  if (!point.failure.empty()) flags += std::string(flags.empty() ? "" : ",") + "failed";
  row = {point.contestant, place_at(verdict, point), mode,
         std::to_string(point.connections), short_rate(m.requests_per_s),
         span_text(requests_per_s_span(point), short_rate),
         latency_text(m.latency.p50), latency_text(m.latency.p99),
         latency_text(m.latency.max), errors_text(m),
         std::isfinite(m.server_cpu_us_per_request) ? printf_text("%.1f", m.server_cpu_us_per_request) : "-",
         memory_text(contestant != nullptr ? contestant->rss_idle_kib : kUnmeasured),
         memory_text(m.rss_peak_kib), ratio_text(results, point), flags};
  if (database) {
    row.insert(row.begin() + kDatabaseColumns,
               {std::isfinite(m.database.cpu_us_per_request)
                    ? printf_text("%.1f", m.database.cpu_us_per_request)
                    : "-",
                std::isfinite(m.database.queries_per_request)
                    ? printf_text("%.2f", m.database.queries_per_request)
                    : "-"});
  }
  return row;
}

// One line for all the noisy points (on a busy machine most may be), and one on what else used
// the server's CPUs in their rounds; each point's own note is in report.md.
std::string noisy_text(const std::vector<std::string>& noisy,
                       const std::vector<const PointResult*>& noisy_points, std::size_t points) {
  if (noisy.empty()) return "";
  std::string which;
  for (const std::string& where : noisy) which += (which.empty() ? "" : ", ") + where;
  return "    noisy (" + std::to_string(noisy.size()) + " of " + std::to_string(points) +
         " points: " + which + "): they did not converge, their requests/s interval stayed "
         "wider than the run's target; give the run more time_budget or quiet the machine\n" +
         "    " + neighbours_text(noisy_points) + "\n";
}

// A workload's table and its points' notes; "" when it has no point.
std::string workload_text(const RunResults& results, const Verdict& verdict,
                          const WorkloadInfo& workload) {
  std::vector<Row> rows = {{"contestant", "#", "mode", "conns", "req/s", "interval", "p50", "p99",
                            "max", "errors", "CPU us/req", memory_heading("idle RSS"),
                            memory_heading("peak RSS"),
                            "vs " + results.baseline, "flags"}};
  // The database's CPU and queries per request, where the harness's PostgreSQL served some.
  const bool database = std::any_of(results.points.begin(), results.points.end(), [&](const PointResult& p) {
    return p.workload == workload.name && database_worked(p);
  });
  if (database) rows[0].insert(rows[0].begin() + kDatabaseColumns, {"DB us/req", "q/req"});
  std::vector<std::pair<std::string, std::string>> notes;  // (where, note)
  std::vector<std::string> noisy;
  std::vector<const PointResult*> noisy_points;
  for (const PointResult& point : results.points) {
    if (point.workload != workload.name) continue;
    rows.push_back(point_row(results, verdict, point, database));
    if (point.rounds.empty()) continue;
    const std::string where = point.contestant + " c=" + std::to_string(point.connections) +
                              (point.mode == LoadMode::kOpen ? " open" : "");
    for (const std::string& note : point.median.notes) notes.emplace_back(where, note);
    if (point.noisy) {
      noisy.push_back(where);
      noisy_points.push_back(&point);
    }
    if (!point.failure.empty()) notes.emplace_back(where, "failed: " + point.failure);
  }
  if (rows.size() == 1) return "";
  std::string text = "\n" + workload.name + " (" + workload.method + " " + workload.path +
                     over_text(workload.protocol, workload.streams) + ")\n";
  text += render_table(rows);
  for (const auto& [where, note] : notes) text += "    " + where + ": " + note + "\n";
  return text + noisy_text(noisy, noisy_points, rows.size() - 1);
}

// After the tables: who was not measured, the shield, warnings, load hosts, a partial run.
std::string run_footer_text(const RunResults& results) {
  std::string text;
  std::string absent;
  for (const ContestantResult& contestant : results.contestants) {
    if (contestant.status == ContestantStatus::kRan) {
      // The workloads it was not given; one skipped for them says so once, below.
      for (const WorkloadSkip& skip : contestant.skipped_workloads) {
        absent += "  " + contestant.name + ": skipped " + skip.workload + ": " + skip.reason + "\n";
      }
      continue;
    }
    absent += "  " + contestant.name + ": " + std::string(status_name(contestant.status)) + ": " + contestant.reason + "\n";
  }
  if (!absent.empty()) text += "\nnot measured, or failed:\n" + absent;
  text += shield_summary(results.shield, results.machine.server_cpus) + "\n";
  for (const std::string& warning : results.machine.warnings) text += "warning: " + warning + "\n";
  const ReportTable hosts = load_hosts_table(results);
  if (!hosts.rows.empty()) {
    std::vector<Row> rows = {hosts.columns};
    for (const auto& row : hosts.rows) rows.push_back(row);
    text += "\nload hosts (ssh; the server listened on " + results.server_address + "):\n" + render_table(rows);
  }
  for (const std::string& warning : load_host_warnings(results)) text += "warning: " + warning + "\n";
  if (results.partial) text += "\nPARTIAL: the run was stopped before every point was measured\n";
  return text;
}

}  // namespace

std::string render_text_report(const RunResults& results) {
  const Verdict verdict = decide_verdict(results);
  std::string text = verdict_text(results, verdict);
  // Right under the verdict, so nobody reads a ranking without them.
  for (const std::string& line : fairness_lines(results)) text += "WARN fairness: " + line + "\n";
  for (const WorkloadInfo& workload : results.workloads) text += workload_text(results, verdict, workload);
  return text + run_footer_text(results);
}

}  // namespace ringside::harness
