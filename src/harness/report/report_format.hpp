// Numbers and text as the reports of `ringside compare` show them (report.md, report.html, the
// --diff table): figures for humans (118,566 req/s, 0.81 ms, 1.9 MB), an en dash for a figure
// that was not measured, and escaping for each place text lands in.
//
//   format_latency(812)      -> "0.81 ms"     (results keep microseconds)
//   format_memory(1946)      -> "2.0 MB"      (results keep KiB; the report shows decimal MB)
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
std::string format_memory(double kib);            // 850 kB · 1.9 MB · 123 MB · 1.23 GB
std::string format_cpu_per_request(double microseconds);  // 7.90 µs · 66.0 µs · 104 µs
std::string format_queries_per_request(double queries);   // 1.00 · 20.0 · 500

// The point made the harness's database work (its tables get the database's columns).
inline bool database_worked(const PointResult& point) {
  return point.failure.empty() && std::isfinite(point.median.database.queries) &&
         point.median.database.queries > 0;
}
std::string format_ratio(double ratio);                   // 1.00× · 0.12× · 12.5×
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
