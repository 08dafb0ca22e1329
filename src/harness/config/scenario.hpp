// A scenario: what one `ringside compare` run measures, read from a TOML file (docs/compare.md
// documents every field). Every field has a default, an unknown field is an error, and every
// error is one line naming the file, the line and the field, so a typo never silently changes
// what is measured.
//
//   Scenario scenario = load_scenario("scenarios/default.toml");   // ScenarioError
//   for (const Workload& workload : scenario.workloads) ...
//   std::vector<std::string> paths = expand_path(workload.path);    // "/users/{1..3}" -> 3 paths
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/contestant.hpp"
#include "harness/config/load_host.hpp"
#include "harness/results/kinds.hpp"

namespace ringside::harness {

struct Workload {
  std::string name;
  std::string path = "/";               // or a pattern with one {A..B} range
  std::string method = "GET";
  std::vector<std::string> headers;     // "Name: value"
  std::string body;
  std::vector<unsigned> connections = {10, 100, 1000};
  LoadMode mode = LoadMode::kClosed;
  double rate = 0;                      // open: requests/s
  LoaderKind loader = LoaderKind::kRingside;
  unsigned loader_threads = 1;
  std::uint64_t requests = 0;           // > 0: count mode instead of duration
  bool keep_alive = true;
  unsigned pipeline = 1;
  Protocol protocol = Protocol::kHttp;  // https, h2: over TLS, with the run's throwaway certificate
  unsigned streams = 1;                 // h2c, h2: concurrent streams per connection (h2load's -m)
  // https: the share of new connections that offer the last session to resume (ringside load's
  // --tls-resume; 0: a full handshake every time). Only ringside load (in-process or on load
  // hosts) can be asked; external loaders do what they do (docs/loaders.md).
  double tls_resume = 0;
};

enum class DatabaseKind { kTemp, kNone, kUrl };

// The scenario's [load] table: where the load comes from. "local": the harness's own process on
// load_cpus (as always); "ssh": `ringside load` on each host, started over ssh at one instant,
// the results merged (harness/loaders/load_hosts.hpp, docs/distributed.md).
struct LoadSetup {
  std::string engine = "local";              // "local" | "ssh"
  std::vector<LoadHost> hosts;               // ssh: from `hosts` or the inventory's group
  std::string inventory;                     // as written (resolved against the scenario's folder)
  std::string group = "generators";
  std::vector<std::string> ssh_options;      // given to every ssh and scp, before the host
  std::string server_address = "127.0.0.1";  // contestants' {host}; the load hosts' target
  std::string remote_binary;                 // "" : /tmp/ringside-<hash of the binary>
  double start_lead_s = 1;                   // the start instant: now + this, after the copies
  [[nodiscard]] bool remote() const { return engine == "ssh"; }
};

struct Scenario {
  std::string name = "default";
  std::string description;
  std::string file;                         // where it was read from ("" when from text)
  std::vector<std::string> contestants;     // empty: every runnable contestant
  std::string baseline = "ringside";
  // rounds = "auto" (the default): every point gets min_rounds, then a point whose median
  // requests/s is not known to within +-target (median_interval.hpp) gets more, up to
  // max_rounds, while the run's time_budget lasts. rounds = N: N rounds, every point.
  bool auto_rounds = true;
  unsigned rounds = 3;                      // fixed: the rounds; auto: min_rounds
  unsigned max_rounds = 8;                  // auto only
  double target = 0.03;
  double confidence = 0.75;
  double time_budget_s = 300;               // auto: no extra round starts that would end past it
  double warmup_s = 2;
  double duration_s = 5;
  double settle_s = 1;
  std::string server_cpus = "0";
  std::string load_cpus = "1";
  unsigned threads = 1;
  DatabaseKind database = DatabaseKind::kTemp;
  std::string database_url;                 // kUrl
  bool equal_load = true;
  double equal_load_fraction = 0.5;
  LoadSetup load;
  std::vector<Workload> workloads;
  // The key of the run's throwaway server certificate, made only when a workload is https.
  TlsKey tls_key = TlsKey::kEcdsaP256;

  // Whether any workload speaks this protocol.
  [[nodiscard]] bool uses(Protocol protocol) const;
};

// A scenario that cannot be used; what() is one line: "FILE:LINE: field 'F': what is allowed".
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses and checks scenario text; `source` names the file in messages. Throws ScenarioError.
Scenario parse_scenario(std::string_view text, const std::string& source);
// Reads and parses a file. Throws ScenarioError (also when it cannot be read).
Scenario load_scenario(const std::filesystem::path& path);

// scenarios/default.toml of the source tree this binary was built in; empty if it does not exist.
std::filesystem::path default_scenario_path();

// "500ms", "2s", "1m", "1h", or a bare number of seconds; nothing when not a finite duration >= 0.
std::optional<double> parse_duration(std::string_view text);

// A taskset-style CPU list ("0", "0-3", "0,2,4-5") as sorted, distinct CPU numbers; nothing when
// malformed or empty.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// The paths a workload's `path` stands for: itself, or for "/users/{1..3}" the paths /users/1,
// /users/2, /users/3 (one {A..B} range, A <= B, at most kMaxExpandedPaths). Throws
// std::invalid_argument saying what is wrong.
inline constexpr std::uint64_t kMaxExpandedPaths = 1'000'000;
std::vector<std::string> expand_path(std::string_view path);

// The contestant route a workload's path exercises: "/" -> hello, "/json" -> json,
// "/users/..." -> users; nothing for any other path (every contestant takes it).
std::optional<Route> route_of_path(std::string_view path);

// True when the contestant should run this workload (it claims the workload's route, or the
// workload's path is on no known route; and it can pipeline when the workload does). Its
// protocol is not asked here: a workload of a protocol it does not serve is skipped, with
// unserved_protocol(contestant, workload.protocol) as the reason.
bool runs_workload(const Contestant& contestant, const Workload& workload);

}  // namespace ringside::harness
