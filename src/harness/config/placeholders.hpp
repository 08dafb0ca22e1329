// Placeholders in a contestant's argv and environment: `{host}` (the address to listen on:
// 127.0.0.1, or a scenario's [load] server_address), `{port}`, `{threads}`, `{db_url}`, `{dir}`
// (the contestant's folder, absolute), `{workdir}` (a fresh empty directory per start),
// `{ringside}` (the running ringside binary) and `{bundled}` (the bundled contestants folder,
// absolute: where a contestant copied elsewhere finds the shared node_modules and lib), and for an
// https start `{tls_cert}`, `{tls_key}` and `{tls_ca}` (the run's throwaway server certificate,
// its key and the CA that signed it, PEM files; empty strings on a plain start, so one start
// command serves both). A placeholder is `{` + lower-case letters or `_` + `}`; any other brace is literal, so a JSON
// argument such as `{"a":1}` needs no escaping.
//
//   std::string error = check_placeholders(text, kStartPlaceholders);  // "" when all are known
//   std::string argument = expand_placeholders(text, values);
//
// Which placeholders a field may use depends on when it is expanded: `build` and `version` run
// before any port or work directory exists, so they take only {dir}, {ringside} and {bundled}
// (as do `requires` entries).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ringside::harness {

enum class Placeholder : std::uint8_t {
  kPort, kThreads, kDbUrl, kDir, kWorkdir, kRingside, kHost, kBundled, kTlsCert, kTlsKey, kTlsCa
};

using PlaceholderSet = std::uint16_t;  // bit (1 << Placeholder)

constexpr PlaceholderSet placeholder_bit(Placeholder p) {
  return static_cast<PlaceholderSet>(1u << static_cast<unsigned>(p));
}

inline constexpr PlaceholderSet kStartPlaceholders = 0x7ff;  // all eleven
inline constexpr PlaceholderSet kBuildPlaceholders = placeholder_bit(Placeholder::kDir) |
                                                     placeholder_bit(Placeholder::kRingside) |
                                                     placeholder_bit(Placeholder::kBundled);

struct PlaceholderValues {
  std::string port;
  std::string threads;
  std::string db_url;
  std::string dir;
  std::string workdir;
  std::string ringside;
  std::string host = "127.0.0.1";
  std::string bundled;
  std::string tls_cert;  // https starts only; "" on a plain one
  std::string tls_key;
  std::string tls_ca;
};

// "" when every placeholder in text is known and in `allowed`; otherwise one phrase naming the
// first one that is not ("unknown placeholder {prot} (known: ...)").
std::string check_placeholders(std::string_view text, PlaceholderSet allowed);

// Replaces each known placeholder by its value; unknown ones stay as written (check first).
std::string expand_placeholders(std::string_view text, const PlaceholderValues& values);

}  // namespace ringside::harness
