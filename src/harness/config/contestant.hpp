// A contestant: a folder under contestants/ with a contestant.toml manifest saying how to build,
// start and stop one server and which routes it answers. This module parses and checks manifests
// (every field, its type, the placeholders it uses), finds the contestants in a folder, and says
// whether one can run here (available, its required programs found) and which runtime version it
// has. Nothing here starts a server: see lifecycle.hpp.
//
//   std::vector<Contestant> all = discover_contestants(default_contestants_dir());  // ManifestError
//   Runnability r = check_runnable(all[0]);     // r.runnable, else r.reason and r.install
//
// The manifest format is documented in docs/harness.md.
#pragma once

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/config/data_folder.hpp"
#include "harness/config/placeholders.hpp"
#include "harness/results/kinds.hpp"

namespace ringside::harness {

// The routes a contestant may claim, each with the checks of validate.hpp.
enum class Route : std::uint8_t { kHello, kJson, kUsers, kDb };

std::string_view route_path(Route route);  // "/", "/json", "/users/:id", "/db"
// The routes answered from the database (a server without one answers them 503).
constexpr bool is_database_route(Route route) { return route == Route::kUsers || route == Route::kDb; }

struct Manifest {
  std::string name;  // equals the folder's name
  std::string description;
  std::string language;
  std::string runtime;
  bool available = true;
  std::string reason;                       // why not available
  std::vector<std::string> required;        // `requires`: programs on PATH, or paths (placeholders)
  std::string install;                      // the command that installs what `requires` lacks
  std::vector<std::string> version;         // argv printing the runtime's version; empty: none
  std::vector<std::string> build;           // argv run once before starting; empty: none
  std::vector<std::string> build_inputs;    // relative files and folders that decide a rebuild
  std::vector<std::string> start;           // argv of the server
  std::string ready_path;
  std::vector<Route> routes;
  bool threads_param = true;  // honours {threads}; else it uses `fixed_threads` cores regardless
  int fixed_threads = 0;
  int db_pool = 0;            // connections its pool opens; 0: no database
  // False for a server that cannot answer pipelined requests (Bun 1.4): --validate leaves that
  // check out and says so, and the run gives it no pipelined workload.
  bool pipelining = true;
  // Starts with {db_url} = "none" when a scenario has no database, and serves its other routes.
  bool database_optional = false;
  // The listen backlog its runtime fixes, for a server that has no way to set its own (Bun.serve:
  // 512): the fairness check then notes it rather than warning, as long as the kernel shows
  // exactly that. 0: the server sets its own.
  unsigned listen_backlog = 0;
  // The protocols it serves on {port}: "https" when its start takes {tls_cert} and {tls_key}
  // (empty on a plain start) and then listens with TLS; "h2c" when its plain start also speaks
  // HTTP/2 to a client that opens with the preface, "h2" when its TLS start offers h2 by ALPN.
  // A workload of another protocol is not given to it, and results say why.
  std::vector<Protocol> protocols = {Protocol::kHttp};
  int stop_signal = SIGTERM;
  std::string stop_signal_name = "SIGTERM";
  std::vector<std::pair<std::string, std::string>> env;  // in the file's order
};

struct Contestant {
  Manifest manifest;
  std::filesystem::path dir;            // absolute
  std::filesystem::path manifest_path;  // as given (for messages)
  std::filesystem::path found_in;       // the folder it was found in (contestant_folders.hpp)
  bool bundled = false;                 // found in the bundled folder of the source tree
  [[nodiscard]] const std::string& name() const { return manifest.name; }
  [[nodiscard]] bool claims(Route route) const;
  [[nodiscard]] bool serves(Protocol protocol) const;
  // Whether its start command or [env] takes {host}: without it, it listens on 127.0.0.1 only.
  [[nodiscard]] bool takes_host() const;
};

// Why a contestant without {host} cannot be asked to listen on `host` (for a skip or a failure).
std::string no_host_reason(const std::string& host);

// Why a contestant is not given a workload of `protocol`: "does not serve https (its manifest's
// protocols: http)"; "" when it serves it.
std::string unserved_protocol(const Contestant& contestant, Protocol protocol);

// A manifest that cannot be used; what() is one line: "FILE:LINE: field 'F': what is wrong".
class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kManifestFile = "contestant.toml";

// Parses and checks manifest text. `source` names the file in messages; `folder_name` is what
// `name` must equal. Throws ManifestError.
Manifest parse_manifest(std::string_view text, const std::string& source,
                        std::string_view folder_name);

// Reads DIR/contestant.toml. Throws ManifestError (also when the file cannot be read).
Contestant load_contestant(const std::filesystem::path& dir);

// Every folder of `root` holding a contestant.toml, sorted by name. Throws ManifestError for the
// first bad manifest, and std::runtime_error when root is not a readable folder.
std::vector<Contestant> discover_contestants(const std::filesystem::path& root);

// The bundled contestants: contestants/ of the data folder (harness/config/data_folder.hpp) when
// that is the source tree; from an install or $RINGSIDE_DATA, its working copy in the cache
// folder (cache_folder.hpp), brought up to date on first use, so builds and `npm ci` never write
// into the install. Empty if there is none.
std::filesystem::path default_contestants_dir();

// The placeholders known before a start: {dir}, {ringside} and {bundled} (the bundled folder,
// also for a contestant found elsewhere; empty when the binary has no source tree).
PlaceholderValues fixed_placeholders(const Contestant& contestant);

struct Runnability {
  bool runnable = true;
  std::string reason;   // why not: "not available: ...", "needs node (not on PATH)"
  std::string install;  // the manifest's install command, when something required is missing
};

Runnability check_runnable(const Contestant& contestant);

}  // namespace ringside::harness
