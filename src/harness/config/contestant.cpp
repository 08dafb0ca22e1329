#include "harness/config/contestant.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <toml++/toml.h>

#include "harness/config/cache_folder.hpp"
#include "harness/config/placeholders.hpp"
#include "harness/config/toml_fields.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::pair<std::string_view, Route>, 4> kRoutes = {{
    {"/", Route::kHello},
    {"/json", Route::kJson},
    {"/users/:id", Route::kUsers},
    {"/db", Route::kDb},
}};

constexpr std::array<std::pair<std::string_view, int>, 6> kStopSignals = {{
    {"SIGTERM", SIGTERM},
    {"SIGINT", SIGINT},
    {"SIGQUIT", SIGQUIT},
    {"SIGHUP", SIGHUP},
    {"SIGUSR1", SIGUSR1},
    {"SIGUSR2", SIGUSR2},
}};

constexpr std::array<std::string_view, 22> kFields = {
    "name",  "description", "language",     "runtime", "available",  "reason",
    "requires", "install",  "version",      "build",   "build_inputs", "start",
    "ready_path", "routes", "threads",      "db_pool", "stop_signal", "env", "pipelining",
    "database_optional", "listen_backlog", "protocols"};

using FieldReader = TomlFields<ManifestError>;

void check_argv(const FieldReader& reader, std::string_view field,
                const std::vector<std::string>& argv, PlaceholderSet allowed) {
  for (const std::string& argument : argv) {
    std::string problem = check_placeholders(argument, allowed);
    if (!problem.empty()) reader.fail(field, problem, reader.node(field));
  }
}

void check_relative(const FieldReader& reader, std::string_view field, const std::string& path) {
  if (path.empty() || path.front() == '/') {
    reader.fail(field, "'" + path + "' must be a path relative to the contestant's folder",
                reader.node(field));
  }
}

void read_routes(const FieldReader& reader, Manifest& manifest) {
  auto routes = reader.strings("routes", true);
  if (routes->empty()) reader.fail("routes", "must name at least one route", reader.node("routes"));
  for (const std::string& path : *routes) {
    auto known = std::find_if(kRoutes.begin(), kRoutes.end(),
                              [&](const auto& route) { return route.first == path; });
    if (known == kRoutes.end()) {
      reader.fail("routes", "unknown route '" + path + "' (known: /, /json, /users/:id, /db)",
                  reader.node("routes"));
    }
    if (std::find(manifest.routes.begin(), manifest.routes.end(), known->second) !=
        manifest.routes.end()) {
      reader.fail("routes", "'" + path + "' is listed twice", reader.node("routes"));
    }
    manifest.routes.push_back(known->second);
  }
}

void read_protocols(const FieldReader& reader, Manifest& manifest) {
  auto names = reader.strings("protocols", false);
  if (!names) return;
  if (names->empty()) {
    reader.fail("protocols",
                "must name at least one protocol: \"http\", \"https\", \"h2c\", \"h2\"",
                reader.node("protocols"));
  }
  manifest.protocols.clear();
  for (const std::string& name : *names) {
    const std::optional<Protocol> protocol = protocol_from_name(name);
    if (!protocol) {
      reader.fail("protocols", "unknown protocol '" + name + "' (known: http, https, h2c, h2)",
                  reader.node("protocols"));
    }
    if (std::find(manifest.protocols.begin(), manifest.protocols.end(), *protocol) !=
        manifest.protocols.end()) {
      reader.fail("protocols", "'" + name + "' is listed twice", reader.node("protocols"));
    }
    manifest.protocols.push_back(*protocol);
  }
  // HTTP/2 comes from the same start as its transport's HTTP/1.1: h2c on the plain one, h2 on TLS.
  for (Protocol http2 : {Protocol::kH2c, Protocol::kH2}) {
    const bool listed = std::find(manifest.protocols.begin(), manifest.protocols.end(), http2) !=
                        manifest.protocols.end();
    const Protocol transport = transport_of(http2);
    if (listed && std::find(manifest.protocols.begin(), manifest.protocols.end(), transport) ==
                      manifest.protocols.end()) {
      reader.fail("protocols",
                  "'" + std::string(protocol_name(http2)) + "' needs '" +
                      std::string(protocol_name(transport)) +
                      "' too: HTTP/2 is served by the same start, on the same port",
                  reader.node("protocols"));
    }
  }
}

void read_threads(const FieldReader& reader, Manifest& manifest) {
  const toml::node* node = reader.find("threads", true);
  if (node->is_string() && node->as_string()->get() == "param") {
    manifest.threads_param = true;
    return;
  }
  if (node->is_integer() && node->as_integer()->get() >= 1 && node->as_integer()->get() <= 4096) {
    manifest.threads_param = false;
    manifest.fixed_threads = static_cast<int>(node->as_integer()->get());
    return;
  }
  reader.fail("threads", "must be \"param\" (it honours {threads}) or an integer in [1 - 4096]",
              node);
}

void read_db_pool(const FieldReader& reader, Manifest& manifest) {
  const toml::node* node = reader.find("db_pool", false);
  if (node == nullptr) return;
  if (!node->is_integer() || node->as_integer()->get() < 0 ||
      node->as_integer()->get() > 10000) {
    reader.fail("db_pool", "must be an integer in [0 - 10000] (0: no database)", node);
  }
  manifest.db_pool = static_cast<int>(node->as_integer()->get());
}

void read_stop_signal(const FieldReader& reader, Manifest& manifest) {
  auto name = reader.string("stop_signal", false);
  if (!name) return;
  auto known = std::find_if(kStopSignals.begin(), kStopSignals.end(),
                            [&](const auto& signal) { return signal.first == *name; });
  if (known == kStopSignals.end()) {
    reader.fail("stop_signal",
                "'" + *name + "' is not one of SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2",
                reader.node("stop_signal"));
  }
  manifest.stop_signal = known->second;
  manifest.stop_signal_name = *name;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void read_env(const FieldReader& reader, Manifest& manifest) {
  const toml::node* node = reader.find("env", false);
  if (node == nullptr) return;
  const toml::table* env = node->as_table();
  if (env == nullptr) reader.fail("env", "must be a table of NAME = \"value\"", node);
  for (const auto& [key, value] : *env) {
    const std::string name(key.str());
    const std::string field = "env." + name;
    if (!valid_env_name(name)) {
      reader.fail(field, "not a valid environment variable name (letters, digits, _)", &value);
    }
    if (!value.is_string()) {
      reader.fail(field, "must be a string, not " + FieldReader::type_of(value), &value);
    }
    std::string problem = check_placeholders(value.as_string()->get(), kStartPlaceholders);
    if (!problem.empty()) reader.fail(field, problem, &value);
    manifest.env.emplace_back(name, value.as_string()->get());
  }
}

}  // namespace

std::string_view route_path(Route route) {
  for (const auto& [path, known] : kRoutes) {
    if (known == route) return path;
  }
  return "?";
}

bool Contestant::claims(Route route) const {
  return std::find(manifest.routes.begin(), manifest.routes.end(), route) != manifest.routes.end();
}

bool Contestant::serves(Protocol protocol) const {
  return std::find(manifest.protocols.begin(), manifest.protocols.end(), protocol) !=
         manifest.protocols.end();
}

namespace {

// name, description, language, runtime, available (and why not), requires.
void read_identity(const FieldReader& reader, std::string_view folder_name, Manifest& manifest) {
  manifest.name = *reader.string("name", true);
  if (manifest.name != folder_name) {
    reader.fail("name", "'" + manifest.name + "' must equal the folder's name '" +
                            std::string(folder_name) + "'",
                reader.node("name"));
  }
  manifest.description = reader.string("description", false).value_or("");
  manifest.language = reader.string("language", false).value_or("");
  manifest.runtime = *reader.string("runtime", true);
  manifest.available = reader.boolean("available").value_or(true);
  manifest.reason = reader.string("reason", false).value_or("");
  if (!manifest.available && manifest.reason.empty()) {
    reader.fail("reason", "must say why, since available = false", reader.node("available"));
  }
  manifest.required = reader.strings("requires", false).value_or(std::vector<std::string>{});
  for (const std::string& program : manifest.required) {
    if (program.empty() || program.front() == '/') {
      reader.fail("requires", "'" + program + "' must be a program name or a path relative to "
                              "the contestant's folder (or starting with {bundled} or {dir})",
                  reader.node("requires"));
    }
  }
  check_argv(reader, "requires", manifest.required, kBuildPlaceholders);
}

// install, version, build (and its inputs), start and ready_path: what the harness runs.
void read_commands(const FieldReader& reader, Manifest& manifest) {
  manifest.install = reader.string("install", false).value_or("");
  manifest.version = reader.strings("version", false).value_or(std::vector<std::string>{});
  check_argv(reader, "version", manifest.version, kBuildPlaceholders);
  manifest.build = reader.strings("build", false).value_or(std::vector<std::string>{});
  check_argv(reader, "build", manifest.build, kBuildPlaceholders);
  manifest.build_inputs = reader.strings("build_inputs", false).value_or(std::vector<std::string>{});
  for (const std::string& input : manifest.build_inputs) check_relative(reader, "build_inputs", input);
  manifest.start = *reader.strings("start", true);
  // A contestant listed only to say why it cannot run (rocket) has nothing to start.
  if (manifest.start.empty() && manifest.available) {
    reader.fail("start", "must not be empty", reader.node("start"));
  }
  check_argv(reader, "start", manifest.start, kStartPlaceholders);
  manifest.ready_path = *reader.string("ready_path", true);
  if (manifest.ready_path.empty() || manifest.ready_path.front() != '/' ||
      manifest.ready_path.find_first_of(" \t\r\n") != std::string::npos) {
    reader.fail("ready_path", "'" + manifest.ready_path + "' must be a path starting with /",
                reader.node("ready_path"));
  }
}

// Whether `start` or an [env] value holds `placeholder` ("{port}").
bool uses_placeholder(const Manifest& manifest, std::string_view placeholder) {
  auto has = [&](const std::string& text) { return text.find(placeholder) != std::string::npos; };
  return std::any_of(manifest.start.begin(), manifest.start.end(), has) ||
         std::any_of(manifest.env.begin(), manifest.env.end(),
                     [&](const auto& entry) { return has(entry.second); });
}

// The harness picks a free port per start and waits for the server there; a server that is not
// told the port listens elsewhere, and was only found "refusing connections" at the end of the
// ready timeout. start and [env] are where the harness substitutes {port} (a config template
// takes it from an argument of the script that renders it: nginx, h2o). A contestant that is
// not available starts nothing, and is not asked.
void require_port(const FieldReader& reader, const Manifest& manifest) {
  if (!manifest.available || uses_placeholder(manifest, "{port}")) return;
  reader.fail("start",
              "passes no {port} to the server, so it cannot listen on the port the harness "
              "picks and waits on; add it to start (\"--port\", \"{port}\") or to [env] "
              "(PORT = \"{port}\")",
              reader.node("start"));
}

// A server that says it serves https is handed its certificate and key through {tls_cert} and
// {tls_key}; one that takes neither would listen in plain text while the harness speaks TLS to
// it, and all that could be seen was a failed handshake at the end of the ready timeout.
void require_tls_files(const FieldReader& reader, const Manifest& manifest) {
  const bool https = std::any_of(manifest.protocols.begin(), manifest.protocols.end(), over_tls);
  if (!manifest.available || !https) return;
  for (std::string_view placeholder : {"{tls_cert}", "{tls_key}"}) {
    if (uses_placeholder(manifest, placeholder)) continue;
    reader.fail("protocols",
                "lists \"https\", but start and [env] pass no " + std::string(placeholder) +
                    ": an https start is handed the run's certificate and key there (empty on a "
                    "plain start); add TLS_CERT = \"{tls_cert}\" and TLS_KEY = \"{tls_key}\" to [env]",
                reader.node("protocols"));
  }
}

}  // namespace

Manifest parse_manifest(std::string_view text, const std::string& source,
                        std::string_view folder_name) {
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    throw ManifestError(source + ":" + std::to_string(error.source().begin.line) +
                        ": not valid TOML: " + std::string(error.description()));
  }
  const FieldReader reader(table, source);
  reader.refuse_unknown(kFields);

  Manifest manifest;
  read_identity(reader, folder_name, manifest);
  read_commands(reader, manifest);
  read_routes(reader, manifest);
  read_threads(reader, manifest);
  read_db_pool(reader, manifest);
  manifest.pipelining = reader.boolean("pipelining").value_or(true);
  manifest.database_optional = reader.boolean("database_optional").value_or(false);
  manifest.listen_backlog =
      static_cast<unsigned>(reader.integer("listen_backlog", 1, 65535).value_or(0));
  read_protocols(reader, manifest);
  read_stop_signal(reader, manifest);
  read_env(reader, manifest);
  require_port(reader, manifest);
  require_tls_files(reader, manifest);
  return manifest;
}

Contestant load_contestant(const fs::path& dir) {
  const fs::path path = dir / kManifestFile;
  std::ifstream file(path);
  if (!file) throw ManifestError(path.string() + ": cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  Contestant contestant;
  std::error_code error;
  contestant.dir = fs::absolute(dir, error).lexically_normal();
  if (contestant.dir.has_filename() == false) contestant.dir = contestant.dir.parent_path();
  contestant.manifest_path = path;
  contestant.manifest =
      parse_manifest(text.str(), path.string(), contestant.dir.filename().string());
  return contestant;
}

std::vector<Contestant> discover_contestants(const fs::path& root) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw std::runtime_error("contestants folder '" + root.string() + "' does not exist");
  }
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory() && fs::exists(entry.path() / kManifestFile)) {
      folders.push_back(entry.path());
    }
  }
  if (error) throw std::runtime_error("cannot list '" + root.string() + "': " + error.message());
  std::sort(folders.begin(), folders.end());
  std::vector<Contestant> contestants;
  for (const fs::path& folder : folders) contestants.push_back(load_contestant(folder));
  return contestants;
}

PlaceholderValues fixed_placeholders(const Contestant& contestant) {
  PlaceholderValues values;
  values.dir = contestant.dir.string();
  values.ringside = self_executable().string();
  values.bundled = default_contestants_dir().string();
  return values;
}

namespace {

// An install (or $RINGSIDE_DATA) is not written to: its contestants run from a working copy in
// the cache folder, brought up to date once per process, where builds and `npm ci` write.
fs::path working_copy_of(const fs::path& installed) {
  const fs::path copy = cache_folder() / "contestants";
  try {
    mirror_tree(installed, copy);
    return copy;
  } catch (const std::runtime_error& error) {
    std::fprintf(stderr, "ringside: cannot copy the contestants to the cache folder (%s): they run "
                         "from %s, where builds may fail; set --cache DIR (or RINGSIDE_CACHE) to a "
                         "folder you can write\n", error.what(), installed.c_str());
    return installed;
  }
}

}  // namespace

fs::path default_contestants_dir() {
  static const fs::path folder = [] {
    const DataFolder& data = data_folder();
    std::error_code error;
    if (data.root.empty() || !fs::is_directory(data.root / "contestants", error)) return fs::path();
    if (data.origin == DataOrigin::kSourceTree) return data.root / "contestants";
    return working_copy_of(data.root / "contestants");
  }();
  return folder;
}

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const auto colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    if (access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

// Outside the source tree `scripts/setup` is not there: a bundled contestant's missing programs
// come from the system's packages, and its packages and build from `ringside contestants install`.
std::string install_hint(const Contestant& contestant, const std::vector<std::string>& programs) {
  const std::string& install = contestant.manifest.install;
  if (!contestant.bundled || data_folder().origin == DataOrigin::kSourceTree) {
    return install.empty() ? "scripts/setup" : install;
  }
  if (programs.empty()) return "ringside contestants install " + contestant.name();
  std::string packages;
  for (const std::string& program : programs) {
    packages += " " + (program == "node" ? std::string("nodejs") : program == "cc" ? "gcc" : program);
  }
  return "apt-get install" + packages + ", then ringside contestants install " + contestant.name();
}

}  // namespace

bool Contestant::takes_host() const { return uses_placeholder(manifest, "{host}"); }

std::string no_host_reason(const std::string& host) {
  return "its start command has no {host}: it listens on 127.0.0.1 only, not on " + host +
         "; add {host} to its start command or [env] (docs/contestants.md)";
}

std::string unserved_protocol(const Contestant& contestant, Protocol protocol) {
  if (contestant.serves(protocol)) return {};
  std::string listed;
  for (Protocol served : contestant.manifest.protocols) {
    listed += (listed.empty() ? "" : ", ") + std::string(protocol_name(served));
  }
  return "does not serve " + std::string(protocol_name(protocol)) + " (its manifest's protocols: " +
         listed + ")";
}

Runnability check_runnable(const Contestant& contestant) {
  const Manifest& manifest = contestant.manifest;
  if (!manifest.available) return {false, "not available: " + manifest.reason, ""};
  std::vector<std::string> missing;
  std::vector<std::string> missing_programs;
  const PlaceholderValues values = fixed_placeholders(contestant);
  for (const std::string& entry : manifest.required) {
    // A bare name is a program on PATH; a path (relative to the folder, or from {bundled}) is a
    // file that must be there: a runtime's binary, or a package that npm ci installs.
    const std::string program = expand_placeholders(entry, values);
    if (values.bundled.empty() && entry.find("{bundled}") != std::string::npos) {
      missing.push_back(entry + " (no bundled contestants folder: " + self_executable().string() +
                        " was not built in a source tree with contestants/)");
    } else if (program.find('/') == std::string::npos) {
      if (!on_path(program)) {
        missing.push_back(program + " (not on PATH)");
        missing_programs.push_back(program);
      }
    } else if (access((contestant.dir / program).c_str(), F_OK) != 0) {
      missing.push_back(program + (program.front() == '/' ? " (no such file)"
                                                          : " (no such file, relative to the folder)"));
    }
  }
  if (missing.empty()) return {};
  std::string reason = "needs ";
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (i > 0) reason += ", ";
    reason += missing[i];
  }
  return {false, reason, install_hint(contestant, missing_programs)};
}


}  // namespace ringside::harness
