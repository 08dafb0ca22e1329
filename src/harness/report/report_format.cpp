#include "harness/report/report_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace ringside::harness {
namespace {

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// Grouped digits for values that read as whole numbers (counts, rates above 100).
std::string grouped(double value) {
  const double rounded = std::round(value);
  const bool negative = rounded < 0;
  std::string text = format_count(static_cast<std::uint64_t>(std::fabs(rounded)));
  return negative ? "-" + text : text;
}

}  // namespace

std::string format_count(std::uint64_t count) {
  std::string digits = std::to_string(count);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

std::string format_rate(double per_second) {
  if (!std::isfinite(per_second)) return std::string(kUnmeasuredText);
  if (per_second >= 99.95) return grouped(per_second);
  if (per_second >= 9.995) return printed("%.1f", per_second);
  return printed("%.2f", per_second);
}

std::string format_latency(double microseconds) {
  if (!std::isfinite(microseconds)) return std::string(kUnmeasuredText);
  const double us = microseconds;
  if (us < 99.5) return printed("%.0f µs", us);
  if (us < 9'995) return printed("%.2f ms", us / 1e3);
  if (us < 99'950) return printed("%.1f ms", us / 1e3);
  if (us < 999'500) return printed("%.0f ms", us / 1e3);
  return printed("%.2f s", us / 1e6);
}

std::string format_memory(double kib) {
  if (!std::isfinite(kib)) return std::string(kUnmeasuredText);
  const double mib = kib / 1024;
  if (mib < 0.995) return printed("%.2f", mib);
  if (mib < 99.95) return printed("%.1f", mib);
  return grouped(mib);
}

std::string format_memory_with_unit(double kib) {
  if (!std::isfinite(kib)) return std::string(kUnmeasuredText);
  return format_memory(kib) + " " + std::string(kMemoryUnit);
}

std::string memory_heading(std::string_view figure) {
  return std::string(figure) + " (" + std::string(kMemoryUnit) + ")";
}

std::string format_cpu_per_request(double microseconds) {
  if (!std::isfinite(microseconds)) return std::string(kUnmeasuredText);
  if (microseconds < 9.995) return printed("%.2f µs", microseconds);
  if (microseconds < 99.95) return printed("%.1f µs", microseconds);
  return grouped(microseconds) + " µs";
}

std::string format_queries_per_request(double queries) {
  if (!std::isfinite(queries)) return std::string(kUnmeasuredText);
  if (queries < 9.995) return printed("%.2f", queries);
  if (queries < 99.95) return printed("%.1f", queries);
  return grouped(queries);
}

std::string format_ratio(double ratio, std::string_view times) {
  if (!std::isfinite(ratio)) return std::string(kUnmeasuredText);
  const std::string sign(times);
  if (ratio >= 9.995) return printed("%.1f", ratio) + sign;
  if (ratio >= 0.00995) return printed("%.2f", ratio) + sign;
  if (ratio <= 0) return "0" + sign;
  // Two significant digits, as many decimals as that takes: 0.0031, 0.00042; never 0.00.
  const int decimals = std::min(1 - static_cast<int>(std::floor(std::log10(ratio))), 12);
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, ratio);
  return text + sign;
}

std::string format_change(double fraction) {
  if (!std::isfinite(fraction)) return std::string(kUnmeasuredText);
  return printed("%+.1f%%", fraction * 100);
}

std::string format_share(double fraction) {
  if (!std::isfinite(fraction)) return std::string(kUnmeasuredText);
  return printed("%.0f%%", fraction * 100);
}

std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escape_json_for_script(std::string_view json) {
  // '<', '>' and '&' occur in valid JSON only inside strings, where \uXXXX means the same.
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // line separators
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_inline_code(std::string_view code, std::string_view tag) {
  // "</script" closes the element wherever it stands; "<\/script" means the same in a JS string
  // or regex and in CSS. "<!--" would put the HTML parser in its escaped script state.
  std::string out;
  out.reserve(code.size());
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '<' && i + 1 < code.size() && code[i + 1] == '/' &&
        code.size() - i - 2 >= tag.size()) {
      bool same = true;
      for (std::size_t k = 0; k < tag.size() && same; ++k) {
        same = std::tolower(static_cast<unsigned char>(code[i + 2 + k])) == tag[k];
      }
      if (same) {
        out += "<\\/";
        ++i;
        continue;
      }
    }
    if (code.compare(i, 4, "<!--") == 0) {
      out += "<\\!--";
      i += 3;
      continue;
    }
    out += code[i];
  }
  return out;
}

std::string over_text(Protocol protocol, unsigned streams) {
  if (protocol == Protocol::kHttp) return "";
  std::string text = " over " + std::string(protocol_name(protocol));
  if (is_http2(protocol)) {
    text +=
        ", " + std::to_string(streams) + (streams == 1 ? " stream" : " streams") + " a connection";
  }
  return text;
}

}  // namespace ringside::harness
