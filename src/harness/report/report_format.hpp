// Numbers and text as the reports of `ringside compare` show them (the terminal table, report.md,
// report.html, the --diff table): one function per kind of figure, which every report calls, so
// a figure reads the same everywhere (118,566 req/s, 0.81 ms, 20.7 MiB, 0.0031×); an en dash
// for a figure that was not measured; and escaping for each place text lands in.
//
//   format_latency(812)      -> "0.81 ms"     (results keep microseconds)
//   format_memory(21'197)    -> "20.7"        (results keep KiB; shown in MiB, said in the heading)
//   memory_heading("peak RSS") -> "peak RSS (MiB)"
//   format_ratio(0.00314)    -> "0.0031×"     (never 0.00×: two significant digits below 0.01)
//   escape_markdown("a|b")   -> "a\|b"        (safe inside a Markdown table cell)
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "harness/results/results.hpp"

namespace ringside::harness {

inline constexpr std::string_view kUnmeasuredText = "–";

std::string format_count(std::uint64_t count);    // 12,345
std::string format_rate(double per_second);       // 118,566 · 85.3 · 4.25
std::string format_latency(double microseconds);  // 45 µs · 0.81 ms · 27.3 ms · 812 ms · 2.73 s
// Memory in one unit everywhere, MiB (KiB / 1024), the unit said once in the column's heading.
inline constexpr std::string_view kMemoryUnit = "MiB";
std::string format_memory(double kib);            // 0.83 · 1.7 · 20.7 · 123 · 7,957
std::string format_memory_with_unit(double kib);  // 20.7 MiB, where no heading says it
std::string memory_heading(std::string_view figure);  // "idle RSS" -> "idle RSS (MiB)"
std::string format_cpu_per_request(double microseconds);  // 7.90 µs · 66.0 µs · 104 µs
std::string format_queries_per_request(double queries);   // 1.00 · 20.0 · 500
// After a workload's request line: "" (plain HTTP/1.1), " over https", " over h2c, 10 streams a
// connection".
std::string over_text(Protocol protocol, unsigned streams);

// The point made the harness's database work (its tables get the database's columns).
inline bool database_worked(const PointResult& point) {
  return point.failure.empty() && std::isfinite(point.median.database.queries) &&
         point.median.database.queries > 0;
}
// `times` is the sign after it: "×", or "x" where the text is plain ASCII (the terminal).
std::string format_ratio(double ratio, std::string_view times = "×");  // 1.00× · 0.12× · 0.0031× · 12.5×
std::string format_change(double fraction);               // +15.0% · -3.2% · +0.0%
std::string format_share(double fraction);                // 55%

// Text as a Markdown table cell or paragraph: no markup, table or HTML takes effect.
std::string escape_markdown(std::string_view text);
// Text as HTML element content or an attribute value in double or single quotes.
std::string escape_html(std::string_view text);
// JSON (already valid) inside <script type="application/json">: no "</script>", "<!--" or
// line separator can end or confuse the element; JSON.parse reads the same value back.
std::string escape_json_for_script(std::string_view json);
// Code inside <script> or <style>: a closing tag in a string or comment is broken up.
std::string escape_inline_code(std::string_view code, std::string_view tag);

}  // namespace ringside::harness
