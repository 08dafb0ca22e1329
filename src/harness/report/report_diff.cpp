#include "harness/report/report_diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/report/report_format.hpp"

namespace ringside::harness {
namespace {

constexpr double kRateTolerance = 0.01;

struct Figure {
  const char* name;
  bool higher_is_better;
  double (*of)(const RoundFigures&);
  std::string (*format)(double);
};

const Figure kFigures[] = {
    {"req/s", true, [](const RoundFigures& r) { return r.requests_per_s; }, format_rate},
    {"p99", false, [](const RoundFigures& r) { return r.latency.p99; }, format_latency},
    {"CPU/req", false, [](const RoundFigures& r) { return r.server_cpu_us_per_request; },
     format_cpu_per_request},
    {"peak RSS", false, [](const RoundFigures& r) { return r.rss_peak_kib; },
     format_memory_with_unit},
    {"DB CPU/req", false, [](const RoundFigures& r) { return r.database.cpu_us_per_request; },
     format_cpu_per_request},
    {"queries/req", false, [](const RoundFigures& r) { return r.database.queries_per_request; },
     format_queries_per_request},
};

const Figure& figure_named(const std::string& name) {
  for (const Figure& f : kFigures) {
    if (name == f.name) return f;
  }
  return kFigures[0];
}

std::string point_label(const PointResult& p) {
  std::string label =
      p.mode == LoadMode::kOpen ? "open " + format_rate(p.rate) + "/s" : "c=" + format_count(p.connections);
  if (p.loader != LoaderKind::kRingside) label += " via " + std::string(loader_name(p.loader));
  return label;
}

bool same_point(const PointResult& a, const PointResult& b) {
  return a.workload == b.workload && a.contestant == b.contestant && a.mode == b.mode &&
         a.connections == b.connections && a.loader == b.loader;
}

const PointResult* find_point(const RunResults& run, const PointResult& like) {
  for (const PointResult& p : run.points) {
    if (same_point(p, like)) return &p;
  }
  return nullptr;
}

std::string describe_run(const RunResults& run) {
  std::string text =
      run.scenario_name.empty() ? "unnamed scenario" : "scenario " + run.scenario_name;
  if (!run.started_at.empty()) text += ", started " + run.started_at;
  if (run.partial) text += ", partial";
  return text;
}

FigureChange compare_figure(const Figure& figure, const PointResult& a, const PointResult& b) {
  FigureChange change;
  change.figure = figure.name;
  change.a = figure.of(a.median);
  change.b = figure.of(b.median);
  change.threshold =
      std::max({figure_noise(a, figure.name), figure_noise(b, figure.name), kDiffMinimumNoise});
  if (std::isfinite(change.a) && std::isfinite(change.b) && change.a > 0) {
    change.change = (change.b - change.a) / change.a;
    change.real = std::fabs(change.change) > change.threshold;
    change.better = figure.higher_is_better ? change.change > 0 : change.change < 0;
  }
  return change;
}

PointDiff compare_point(const PointResult& a, const PointResult& b) {
  PointDiff diff{a.workload, a.contestant, point_label(a), {}, ""};
  if (!a.failure.empty() || !b.failure.empty()) {
    diff.note = !a.failure.empty() && !b.failure.empty() ? "failed in both runs"
                : !a.failure.empty()                     ? "failed in A: " + a.failure
                                                         : "failed in B: " + b.failure;
    for (const Figure& f : kFigures) diff.figures.push_back({f.name});
    return diff;
  }
  for (const Figure& f : kFigures) diff.figures.push_back(compare_figure(f, a, b));
  if (a.mode == LoadMode::kOpen && std::isfinite(a.rate) && std::isfinite(b.rate) && a.rate > 0 &&
      std::fabs(b.rate - a.rate) / a.rate > kRateTolerance) {
    diff.note = "offered rate " + format_rate(a.rate) + " -> " + format_rate(b.rate) + " req/s";
  }
  return diff;
}

// Column widths count characters, not bytes (the µ and – of the formatted figures).
std::size_t characters(const std::string& text) {
  std::size_t count = 0;
  for (const unsigned char c : text) count += (c & 0xC0) != 0x80;
  return count;
}

std::string padded(const std::string& text, std::size_t width) {
  const std::size_t shown = characters(text);
  return text + std::string(width > shown ? width - shown : 0, ' ');
}

std::string cell(const FigureChange& change) {
  if (!std::isfinite(change.change)) return std::string(kUnmeasuredText);
  return format_change(change.change) + (change.real ? " *" : "");
}

}  // namespace

double figure_noise(const PointResult& point, const std::string& figure_name) {
  const Figure& figure = figure_named(figure_name);
  const double median = figure.of(point.median);
  if (!std::isfinite(median) || median <= 0) return 0;
  double low = kUnmeasured, high = kUnmeasured;
  if (figure.higher_is_better && std::isfinite(point.requests_per_s_min) &&
      std::isfinite(point.requests_per_s_max)) {
    low = point.requests_per_s_min;
    high = point.requests_per_s_max;
  } else {
    for (const RoundFigures& round : point.rounds) {
      const double value = figure.of(round);
      if (!std::isfinite(value)) continue;
      low = std::isfinite(low) ? std::min(low, value) : value;
      high = std::isfinite(high) ? std::max(high, value) : value;
    }
  }
  if (!std::isfinite(low)) return 0;
  return std::max(median - low, high - median) / median;
}

RunDiff diff_runs(const RunResults& a, const RunResults& b) {
  RunDiff diff;
  diff.about_a = describe_run(a);
  diff.about_b = describe_run(b);
  for (const PointResult& p : a.points) {
    const PointResult* other = find_point(b, p);
    if (other == nullptr) {
      diff.only_a.push_back(p.workload + " " + point_label(p) + " " + p.contestant);
      continue;
    }
    diff.points.push_back(compare_point(p, *other));
    for (const FigureChange& change : diff.points.back().figures) diff.real_changes += change.real;
  }
  for (const PointResult& p : b.points) {
    if (find_point(a, p) == nullptr)
      diff.only_b.push_back(p.workload + " " + point_label(p) + " " + p.contestant);
  }
  return diff;
}

namespace {

// The rows under the header, in columns. A row may be longer than the header (a note after its
// figures) or shorter (a point in one run only): the widths cover every column any of them has.
std::string columns_text(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) widths[i] = characters(header[i]);
  for (const auto& row : rows) {
    if (row.size() > widths.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], characters(row[i]));
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (std::size_t i = 0; i < row.size(); ++i) {
      text += i + 1 < row.size() ? padded(row[i], widths[i] + 2) : row[i];
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

// One line per change beyond the noise, with both values and the noise it beat.
std::string real_changes_text(const RunDiff& diff) {
  if (diff.real_changes == 0) return "";
  std::string out = "\nChanges beyond the noise:\n";
  for (const PointDiff& p : diff.points) {
    for (const FigureChange& c : p.figures) {
      if (!c.real) continue;
      const Figure& figure = figure_named(c.figure);
      out += "  " + p.workload + " " + p.point + " " + p.contestant + ": " + c.figure + " " +
             format_change(c.change) + " (" + figure.format(c.a) + " -> " + figure.format(c.b) +
             ", " + (c.better ? "better" : "worse") + "; noise " +
             format_change(c.threshold).substr(1) + ")\n";
    }
  }
  return out;
}

}  // namespace

std::string render_diff(const RunDiff& diff, const std::string& label_a,
                        const std::string& label_b) {
  std::string out =
      "A: " + label_a + " (" + diff.about_a + ")\nB: " + label_b + " (" + diff.about_b + ")\n\n";
  std::vector<std::string> header = {"workload", "point", "contestant"};
  for (const Figure& figure : kFigures) header.emplace_back(figure.name);
  std::vector<std::vector<std::string>> rows;
  for (const PointDiff& p : diff.points) {
    std::vector<std::string> row = {p.workload, p.point, p.contestant};
    for (const FigureChange& change : p.figures) row.push_back(cell(change));
    if (!p.note.empty()) row.push_back(p.note);
    rows.push_back(row);
  }
  out += columns_text(header, rows);
  out +=
      "\n* a real change: larger than the noise of both runs (each run's round-to-round spread "
      "around the median, at least " +
      format_share(kDiffMinimumNoise) + ")\n";
  out += real_changes_text(diff);
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += std::string("\n") + title + " (" + std::to_string(items.size()) + "):\n";
    for (const std::string& item : items) out += "  " + item + "\n";
  };
  list("Only in A", diff.only_a);
  list("Only in B", diff.only_b);
  out += "\n" + std::to_string(diff.points.size()) + " points in both runs, " +
         std::to_string(diff.real_changes) + (diff.real_changes == 1 ? " change" : " changes") +
         " beyond the noise, " + std::to_string(diff.only_a.size()) + " only in A, " +
         std::to_string(diff.only_b.size()) + " only in B\n";
  return out;
}

}  // namespace ringside::harness
