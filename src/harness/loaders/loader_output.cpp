#include "harness/loaders/external_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "harness/process/process.hpp"
#include "http/token.hpp"

// The parsers of external_loader.hpp: each tool's report, as Debian's versions print it
// (tests/fixtures/loader_output/), into RoundFigures.
namespace ringside::harness {
namespace {

struct Lines {
  explicit Lines(std::string_view text) {
    std::size_t begin = 0;
    while (begin < text.size()) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(begin, end - begin);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      lines.push_back(line);
      begin = end + 1;
    }
  }
  std::vector<std::string_view> lines;
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Whitespace-separated words.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == ',')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != ',') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

// A number at the start of text; the unit (letters after it) in *unit.
std::optional<double> leading_number(std::string_view text, std::string_view* unit = nullptr) {
  text = trim(text);
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || errno == ERANGE) return std::nullopt;
  if (unit != nullptr) *unit = text.substr(static_cast<std::size_t>(end - copy.c_str()));
  return value;
}

std::optional<std::uint64_t> leading_count(std::string_view text) {
  auto value = leading_number(text);
  if (!value || *value < 0 || !std::isfinite(*value)) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*value));
}

// "160.00us", "6.31ms", "1.09s", "1.00m", "2h" -> microseconds; NaN when not a time.
double microseconds(std::string_view text) {
  std::string_view unit;
  auto value = leading_number(text, &unit);
  if (!value || !std::isfinite(*value)) return kUnmeasured;
  unit = trim(unit);
  if (unit == "us") return *value;
  if (unit == "ms") return *value * 1e3;
  if (unit == "s" || unit == "secs" || unit == "sec") return *value * 1e6;
  if (unit == "m" || unit == "min") return *value * 60e6;
  if (unit == "h") return *value * 3600e6;
  return kUnmeasured;
}

// The number after `label` on the first line holding it (and the rest of that line).
std::optional<std::string_view> after(const Lines& lines, std::string_view label) {
  for (const auto line : lines.lines) {
    const std::size_t at = line.find(label);
    if (at != std::string_view::npos) return line.substr(at + label.size());
  }
  return std::nullopt;
}

void add_count(std::map<std::string, std::uint64_t>& map, const std::string& key,
               std::uint64_t count) {
  if (count > 0) map[key] += count;
}

void not_a_report(std::string_view tool, std::string_view text, std::string& error) {
  const std::string tail = tail_lines(text, 2);
  error = std::string(tool) + " printed no report" + (tail.empty() ? "" : ": " + tail);
}

void finish_rate(RoundFigures& figures) {
  if (std::isnan(figures.requests_per_s) && figures.duration_s > 0) {
    figures.requests_per_s = double(figures.completed) / figures.duration_s;
  }
}

// hey reports each distinct error message; the classes are ringside load's where they match.
std::string hey_error_class(std::string_view message) {
  const std::string text = http::lowercase_copy(message);
  auto has = [&](std::string_view part) { return text.find(part) != std::string::npos; };
  if (has("connection refused")) return "connect_refused";
  if (has("connection reset") || has("broken pipe")) return "reset";
  if (has("timeout") || has("deadline exceeded")) return "timeout";
  if (has("eof")) return "closed";
  if (has("malformed") || has("server gave http response") || has("unexpected")) {
    return "malformed";
  }
  return "other";
}

}  // namespace

// wrk --latency:
//     Latency     8.75ms   20.36ms 120.02ms   90.76%
//   Latency Distribution
//      50%  160.00us ... 99%  102.84ms
//   9557 requests in 1.09s, 1.39MB read
//   Socket errors: connect 0, read 1666, write 0, timeout 0
//   Non-2xx or 3xx responses: 11391
// Requests/sec:   8746.25
RoundFigures parse_wrk_output(std::string_view text, std::string& error) {
  error.clear();
  RoundFigures figures;
  const Lines lines(text);
  bool report = false;
  bool distribution = false;
  std::uint64_t non_2xx = 0;
  for (const auto raw : lines.lines) {
    const std::string_view line = trim(raw);
    const auto fields = words(line);
    if (fields.size() >= 4 && fields[1] == "requests" && fields[2] == "in") {
      report = true;
      figures.completed = leading_count(fields[0]).value_or(0);
      figures.duration_s = microseconds(fields[3]) / 1e6;
    } else if (fields.size() >= 4 && fields[0] == "Latency" && !distribution) {
      figures.latency.mean = microseconds(fields[1]);
      figures.latency.max = microseconds(fields[3]);
    } else if (line == "Latency Distribution") {
      distribution = true;
    } else if (distribution && fields.size() == 2 && fields[0].ends_with('%')) {
      const double value = microseconds(fields[1]);
      if (fields[0] == "50%") figures.latency.p50 = value;
      if (fields[0] == "90%") figures.latency.p90 = value;
      if (fields[0] == "99%") figures.latency.p99 = value;
    } else if (starts_with(line, "Socket errors:")) {
      // "Socket errors: connect 0, read 1666, write 0, timeout 0"
      for (std::size_t i = 2; i + 1 < fields.size(); i += 2) {
        const std::uint64_t count = leading_count(fields[i + 1]).value_or(0);
        const std::string key = fields[i] == "connect" ? "connect" : std::string(fields[i]);
        add_count(figures.errors, key, count);
        figures.failed += count;
      }
    } else if (starts_with(line, "Non-2xx or 3xx responses:")) {
      non_2xx = leading_count(line.substr(25)).value_or(0);
    } else if (starts_with(line, "Requests/sec:")) {
      if (auto rate = leading_number(line.substr(13))) figures.requests_per_s = *rate;
    }
  }
  if (!report) {
    not_a_report("wrk", text, error);
    return figures;
  }
  non_2xx = std::min(non_2xx, figures.completed);
  add_count(figures.statuses, "2xx-3xx", figures.completed - non_2xx);
  add_count(figures.statuses, "non-2xx-3xx", non_2xx);
  // With no response wrk prints zeros, not the absence of a latency.
  if (figures.completed == 0) figures.latency = LatencyFigures{};
  finish_rate(figures);
  return figures;
}

// ab (milliseconds, whole):
//   Time taken for tests:   0.367 seconds
//   Complete requests:      2000
//   Failed requests:        400
//      (Connect: 0, Receive: 200, Length: 0, Exceptions: 200)
//   Non-2xx responses:      1000
//   Total transferred:      306000 bytes
//   Requests per second:    5447.17 [#/sec] (mean)
//   Total:          0    2   3.5      0      20          (min mean sd median max)
//     50%      0 ... 100%     20 (longest request)
// Long: a step per part of the report above, in the order the tool prints them.
RoundFigures parse_ab_output(std::string_view text, std::string& error) {
  error.clear();
  RoundFigures figures;
  const Lines lines(text);
  const auto complete_text = after(lines, "Complete requests:");
  if (!complete_text) {
    not_a_report("ab", text, error);
    return figures;
  }
  const std::uint64_t complete = leading_count(*complete_text).value_or(0);
  if (auto taken = after(lines, "Time taken for tests:")) {
    figures.duration_s = leading_number(*taken).value_or(kUnmeasured);
  }
  std::uint64_t connect = 0, receive = 0, length = 0, exceptions = 0, reported_failed = 0;
  if (auto failed = after(lines, "Failed requests:")) {
    reported_failed = leading_count(*failed).value_or(0);
  }
  if (auto classes = after(lines, "(Connect:")) {
    // " 0, Receive: 200, Length: 0, Exceptions: 200)"
    const auto fields = words(*classes);
    if (fields.size() >= 7) {
      connect = leading_count(fields[0]).value_or(0);
      receive = leading_count(fields[2]).value_or(0);
      length = leading_count(fields[4]).value_or(0);
      exceptions = leading_count(fields[6]).value_or(0);
    }
  }
  add_count(figures.errors, "connect", connect);
  add_count(figures.errors, "read", receive);
  add_count(figures.errors, "length", length);
  add_count(figures.errors, "exceptions", exceptions);
  // ab counts a request in several failure classes at once (a reset is a Receive and an
  // Exception), and counts a length mismatch, which had an answer, as a failure too.
  std::uint64_t failed = std::min(complete, reported_failed - std::min(reported_failed, length));
  std::uint64_t transferred = 1;
  if (auto total = after(lines, "Total transferred:")) {
    transferred = leading_count(*total).value_or(1);
  }
  if (transferred == 0 && complete > failed) {
    // ab counts a connection the server closed unanswered as a complete request; no byte came.
    add_count(figures.errors, "closed", complete - failed);
    failed = complete;
  }
  figures.failed = failed;
  figures.completed = complete - failed;
  std::uint64_t non_2xx = 0;
  if (auto non = after(lines, "Non-2xx responses:")) non_2xx = leading_count(*non).value_or(0);
  non_2xx = std::min(non_2xx, figures.completed);
  add_count(figures.statuses, "2xx", figures.completed - non_2xx);
  add_count(figures.statuses, "non-2xx", non_2xx);

  if (figures.completed > 0) {
    bool times = false;
    for (const auto raw : lines.lines) {
      const std::string_view line = trim(raw);
      const auto fields = words(line);
      if (starts_with(line, "Connection Times (ms)")) times = true;
      if (times && fields.size() >= 6 && fields[0] == "Total:") {
        figures.latency.mean = leading_number(fields[2]).value_or(kUnmeasured) * 1e3;
      }
      if (fields.size() >= 2 && fields[0].ends_with('%') && fields[0].size() <= 4) {
        const double value = leading_number(fields[1]).value_or(kUnmeasured) * 1e3;
        if (fields[0] == "50%") figures.latency.p50 = value;
        if (fields[0] == "90%") figures.latency.p90 = value;
        if (fields[0] == "99%") figures.latency.p99 = value;
        if (fields[0] == "100%") figures.latency.max = value;
      }
    }
  }
  finish_rate(figures);
  return figures;
}

// h2load:
//   finished in 1.00s, 8385.00 req/s, 1.22MB/s
//   requests: 8385 total, 8395 started, 8385 done, 8385 succeeded, 0 failed, 0 errored, 0 timeout
//   status codes: 8385 2xx, 0 3xx, 0 4xx, 0 5xx
//                        min         max         mean         sd        +/- sd
//   time for request:       91us     53.90ms      1.19ms      3.99ms    93.46%
RoundFigures parse_h2load_output(std::string_view text, std::string& error) {
  error.clear();
  RoundFigures figures;
  const Lines lines(text);
  const auto finished = after(lines, "finished in ");
  const auto requests = after(lines, "requests: ");
  if (!finished || !requests) {
    not_a_report("h2load", text, error);
    return figures;
  }
  const auto finished_fields = words(*finished);
  if (!finished_fields.empty()) figures.duration_s = microseconds(finished_fields[0]) / 1e6;
  if (finished_fields.size() >= 3 && finished_fields[2] == "req/s") {
    figures.requests_per_s = leading_number(finished_fields[1]).value_or(kUnmeasured);
  }
  // Pairs of "<count> <name>".
  const auto request_fields = words(*requests);
  std::uint64_t errored = 0, timeouts = 0;
  for (std::size_t i = 0; i + 1 < request_fields.size(); i += 2) {
    const std::uint64_t count = leading_count(request_fields[i]).value_or(0);
    const std::string_view name = request_fields[i + 1];
    if (name == "done") figures.completed = count;
    if (name == "errored") errored = count;
    if (name == "timeout") timeouts = count;
  }
  // "failed" counts non-2xx answers too; "errored" those that got none, timeouts among them.
  figures.failed = errored;
  add_count(figures.errors, "timeout", std::min(timeouts, errored));
  add_count(figures.errors, "errored", errored - std::min(timeouts, errored));
  if (auto codes = after(lines, "status codes: ")) {
    const auto fields = words(*codes);
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
      add_count(figures.statuses, std::string(fields[i + 1]), leading_count(fields[i]).value_or(0));
    }
  }
  if (auto timing = after(lines, "time for request:"); timing && figures.completed > 0) {
    const auto fields = words(*timing);
    if (fields.size() >= 3) {
      figures.latency.max = microseconds(fields[1]);
      figures.latency.mean = microseconds(fields[2]);
    }
  }
  finish_rate(figures);
  return figures;
}

// hey (seconds):
//   Summary:
//     Total:	1.0043 secs
//     Slowest:	0.0262 secs
//     Average:	0.0008 secs
//   Latency distribution:
//     10% in 0.0002 secs ... 99% in 0.0113 secs
//   Status code distribution:
//     [200]	12533 responses
//   Error distribution:
//     [100]	Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused
// Long: a step per part of the report above, in the order the tool prints them.
RoundFigures parse_hey_output(std::string_view text, std::string& error) {
  error.clear();
  RoundFigures figures;
  const Lines lines(text);
  const bool summary = std::any_of(lines.lines.begin(), lines.lines.end(),
                                   [](std::string_view line) { return trim(line) == "Summary:"; });
  const auto total = after(lines, "Total:");
  if (!summary || !total) {
    not_a_report("hey", text, error);
    return figures;
  }
  figures.duration_s = microseconds(*total) / 1e6;
  enum class Section { kNone, kLatency, kStatus, kErrors } section = Section::kNone;
  for (const auto raw : lines.lines) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line == "Latency distribution:") {
      section = Section::kLatency;
      continue;
    }
    if (line == "Status code distribution:") {
      section = Section::kStatus;
      continue;
    }
    if (line == "Error distribution:") {
      section = Section::kErrors;
      continue;
    }
    if (line.ends_with(':')) {
      section = Section::kNone;
      continue;
    }
    if (section == Section::kLatency) {
      const auto fields = words(line);  // "50% in 0.0005 secs"
      if (fields.size() >= 4 && fields[1] == "in") {
        const double value = microseconds(std::string(fields[2]) + std::string(fields[3]));
        if (fields[0] == "50%") figures.latency.p50 = value;
        if (fields[0] == "90%") figures.latency.p90 = value;
        if (fields[0] == "99%") figures.latency.p99 = value;
      }
    } else if ((section == Section::kStatus || section == Section::kErrors) &&
               starts_with(line, "[")) {
      const std::size_t close = line.find(']');
      if (close == std::string_view::npos) continue;
      const std::string_view inside = line.substr(1, close - 1);
      const std::string_view rest = trim(line.substr(close + 1));
      if (section == Section::kStatus) {  // "[200]	12533 responses"
        const std::uint64_t count = leading_count(rest).value_or(0);
        add_count(figures.statuses, std::string(inside), count);
        figures.completed += count;
      } else {  // "[100]	Get ...: connection refused"
        const std::uint64_t count = leading_count(inside).value_or(0);
        add_count(figures.errors, hey_error_class(rest), count);
        figures.failed += count;
      }
    }
  }
  if (figures.completed > 0) {
    if (auto slowest = after(lines, "Slowest:")) figures.latency.max = microseconds(*slowest);
    if (auto average = after(lines, "Average:")) figures.latency.mean = microseconds(*average);
  } else {
    figures.latency = LatencyFigures{};
  }
  // hey's own Requests/sec counts errors as requests: count answers only, as the others do.
  finish_rate(figures);
  return figures;
}

}  // namespace ringside::harness
