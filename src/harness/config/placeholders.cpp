#include "harness/config/placeholders.hpp"

#include <array>
#include <optional>

namespace ringside::harness {
namespace {

constexpr std::array<std::string_view, 11> kNames = {
    "port",     "threads", "db_url",   "dir",     "workdir", "ringside",
    "host",     "bundled", "tls_cert", "tls_key", "tls_ca"};

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

// The placeholder's name when text[open] is `{` starting one, with its length in `length`.
std::optional<std::string_view> placeholder_at(std::string_view text, std::size_t open,
                                               std::size_t& length) {
  std::size_t end = open + 1;
  while (end < text.size() && is_name_char(text[end])) ++end;
  if (end == open + 1 || end >= text.size() || text[end] != '}') return std::nullopt;
  length = end + 1 - open;
  return text.substr(open + 1, end - open - 1);
}

std::optional<Placeholder> lookup(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Placeholder>(i);
  }
  return std::nullopt;
}

std::string names_in(PlaceholderSet set) {
  std::string names;
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if ((set & placeholder_bit(static_cast<Placeholder>(i))) == 0) continue;
    if (!names.empty()) names += ' ';
    names += '{';
    names += kNames[i];
    names += '}';
  }
  return names;
}

const std::string& value_of(Placeholder p, const PlaceholderValues& values) {
  switch (p) {
    case Placeholder::kPort: return values.port;
    case Placeholder::kThreads: return values.threads;
    case Placeholder::kDbUrl: return values.db_url;
    case Placeholder::kDir: return values.dir;
    case Placeholder::kWorkdir: return values.workdir;
    case Placeholder::kHost: return values.host;
    case Placeholder::kBundled: return values.bundled;
    case Placeholder::kTlsCert: return values.tls_cert;
    case Placeholder::kTlsKey: return values.tls_key;
    case Placeholder::kTlsCa: return values.tls_ca;
    case Placeholder::kRingside: break;
  }
  return values.ringside;
}

}  // namespace

std::string check_placeholders(std::string_view text, PlaceholderSet allowed) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t length = 0;
    if (text[i] != '{') continue;
    auto name = placeholder_at(text, i, length);
    if (!name) continue;
    auto known = lookup(*name);
    if (!known) {
      return "unknown placeholder {" + std::string(*name) + "} (known here: " + names_in(allowed) +
             ")";
    }
    if ((allowed & placeholder_bit(*known)) == 0) {
      return "placeholder {" + std::string(*name) + "} is not available here (only " +
             names_in(allowed) + ")";
    }
    i += length - 1;
  }
  return {};
}

std::string expand_placeholders(std::string_view text, const PlaceholderValues& values) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = 0;
    if (text[i] == '{') {
      if (auto name = placeholder_at(text, i, length)) {
        if (auto known = lookup(*name)) {
          out += value_of(*known, values);
          i += length;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace ringside::harness
