#include "harness/config/scenario.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "harness/config/data_folder.hpp"
#include "harness/config/inventory.hpp"
#include "harness/config/toml_fields.hpp"
#include "load/target.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 23> kScenarioFields = {
    "name",     "description", "contestants", "baseline", "rounds",   "min_rounds",
    "max_rounds", "target",    "confidence",  "time_budget", "warmup", "duration",
    "settle",   "server_cpus", "load_cpus",   "threads",  "database", "equal_load",
    "equal_load_fraction", "tls_key", "load", "workload", "workloads"};

constexpr std::array<std::string_view, 8> kLoadFields = {
    "engine", "hosts", "inventory", "group", "ssh_options", "server_address", "remote_binary",
    "start_lead"};

constexpr std::array<std::string_view, 16> kWorkloadFields = {
    "name",     "path",     "method",  "headers",        "body",     "connections",
    "mode",     "rate",     "loader",  "loader_threads", "requests", "keep_alive",
    "pipeline", "protocol", "streams", "tls_resume"};

constexpr double kMaxPhaseS = 24 * 3600.0;

using Reader = TomlFields<ScenarioError>;

std::optional<double> read_duration(const Reader& reader, std::string_view field, double min_s) {
  const toml::node* node = reader.find(field);
  if (node == nullptr) return std::nullopt;
  const std::string allowed = "a duration such as \"500ms\", \"2s\" or \"1m\", at least " +
                              std::string(min_s > 0 ? "1ms" : "0s") + " and at most 24h";
  if (!node->is_string()) reader.fail(field, "must be " + allowed + ", not " + Reader::type_of(*node));
  const auto value = parse_duration(node->as_string()->get());
  if (!value || *value < min_s || *value > kMaxPhaseS) {
    reader.fail(field, "must be " + allowed + " (got \"" + node->as_string()->get() + "\")");
  }
  return value;
}

// rounds = N or "auto", and the auto rounds' stopping rule and budget.
void read_rounds(const Reader& reader, Scenario& scenario) {
  if (const toml::node* node = reader.find("rounds"); node != nullptr && node->is_string()) {
    if (node->as_string()->get() != "auto") {
      reader.fail("rounds", "must be \"auto\" or a number of rounds from 1 to 100 (got \"" +
                                node->as_string()->get() + "\")");
    }
  } else if (auto fixed = reader.integer("rounds", 1, 100)) {
    scenario.auto_rounds = false;
    scenario.rounds = static_cast<unsigned>(*fixed);
  }
  const bool tuned = reader.find("min_rounds") || reader.find("max_rounds") ||
                     reader.find("target") || reader.find("confidence") || reader.find("time_budget");
  if (!scenario.auto_rounds && tuned) {
    for (std::string_view field : {"min_rounds", "max_rounds", "target", "confidence", "time_budget"}) {
      if (reader.find(field)) reader.fail(field, "goes with rounds = \"auto\" (rounds is a number here)");
    }
  }
  if (!scenario.auto_rounds) return;
  scenario.rounds = static_cast<unsigned>(reader.integer("min_rounds", 1, 100).value_or(3));
  scenario.max_rounds = static_cast<unsigned>(
      reader.integer("max_rounds", scenario.rounds, 100).value_or(std::max(8u, scenario.rounds)));
  if (const toml::node* node = reader.find("target")) {
    const std::string allowed = "a percentage from 0.1% to 50%, such as \"3%\"";
    std::string text = node->is_string() ? node->as_string()->get() : "";
    double percent = 0;
    const bool parsed = text.size() > 1 && text.back() == '%' &&
                        std::from_chars(text.data(), text.data() + text.size() - 1, percent).ptr ==
                            text.data() + text.size() - 1;
    if (!parsed || percent < 0.1 || percent > 50) {
      reader.fail("target", "must be " + allowed + (text.empty() ? "" : " (got \"" + text + "\")"));
    }
    scenario.target = percent / 100;
  }
  scenario.confidence = reader.number("confidence", 0.5, 0.99, "from 0.5 to 0.99").value_or(0.75);
  scenario.time_budget_s = read_duration(reader, "time_budget", 0.001).value_or(300);
}

void read_cpus(const Reader& reader, std::string_view field, std::string& into) {
  if (auto text = reader.string(field)) {
    if (!parse_cpu_list(*text)) {
      reader.fail(field, "must be a CPU list such as \"0\", \"0-3\" or \"0,2\" (got \"" + *text + "\")");
    }
    into = *text;
  }
}

void read_database(const Reader& reader, Scenario& scenario) {
  auto text = reader.string("database");
  if (!text) return;
  if (*text == "temp") {
    scenario.database = DatabaseKind::kTemp;
  } else if (*text == "none") {
    scenario.database = DatabaseKind::kNone;
  } else if (text->starts_with("postgres://") || text->starts_with("postgresql://")) {
    scenario.database = DatabaseKind::kUrl;
    scenario.database_url = *text;
  } else {
    reader.fail("database",
                "must be \"temp\" (a throwaway seeded PostgreSQL), \"none\", or a postgres:// URL");
  }
}

void read_connections(const Reader& reader, Workload& workload) {
  const toml::node* node = reader.table().get("connections");
  if (node == nullptr) return;
  const std::string allowed = "an array of connection counts from 1 to 1000000, such as [10, 100]";
  const toml::array* array = node->as_array();
  if (array == nullptr || array->empty()) reader.fail("connections", "must be " + allowed);
  workload.connections.clear();
  for (const toml::node& item : *array) {
    if (!item.is_integer() || item.as_integer()->get() < 1 ||
        item.as_integer()->get() > 1'000'000) {
      reader.fail("connections", "must be " + allowed, &item);
    }
    workload.connections.push_back(static_cast<unsigned>(item.as_integer()->get()));
  }
}

// mode and rate: closed without a rate, or open at one.
void read_mode(const Reader& reader, Workload& workload) {
  const std::string mode = reader.string("mode").value_or("closed");
  const std::optional<LoadMode> parsed = mode_from_name(mode);
  if (!parsed) {
    reader.fail("mode", "must be \"closed\" (fixed connections, as fast as they go) or \"open\" "
                        "(a fixed request rate, with rate = N)");
  }
  workload.mode = *parsed;
  workload.rate = reader.number("rate", 0, 100'000'000, "from 0 to 100000000 requests/s").value_or(0);
  if (workload.mode == LoadMode::kOpen && workload.rate < 0.01) {
    reader.fail("rate", "an open workload needs rate = requests/s, at least 0.01");
  }
  if (workload.mode == LoadMode::kClosed && workload.rate != 0) {
    reader.fail("rate", "only an open workload has a rate (set mode = \"open\", or drop rate)");
  }
}

void read_loader(const Reader& reader, Workload& workload) {
  const std::optional<LoaderKind> loader = loader_from_name(reader.string("loader").value_or("ringside"));
  if (!loader) reader.fail("loader", "must be one of ringside, wrk, ab, h2load, hey");
  workload.loader = *loader;
  if (workload.loader != LoaderKind::kRingside && workload.path.find('{') != std::string::npos) {
    reader.fail("path", "a pattern needs loader = \"ringside\" (external loaders take one URL)");
  }
}

void read_protocol(const Reader& reader, Workload& workload) {
  const std::string text = reader.string("protocol").value_or("http");
  const std::optional<Protocol> protocol = protocol_from_name(text);
  if (!protocol) {
    reader.fail("protocol",
                "must be \"http\" (plain HTTP/1.1), \"https\" (HTTP/1.1 over TLS, "
                "with the run's throwaway certificate), \"h2c\" (HTTP/2 on the plain "
                "port, prior knowledge) or \"h2\" (HTTP/2 over TLS by ALPN), not \"" +
                    text + "\"");
  }
  workload.protocol = *protocol;
  workload.streams = static_cast<unsigned>(reader.integer("streams", 1, 1000).value_or(1));
  if (!is_http2(workload.protocol)) {
    if (reader.table().get("streams") != nullptr) {
      reader.fail("streams",
                  "streams are HTTP/2's: set protocol = \"h2c\" or \"h2\" (HTTP/1.1 "
                  "has pipeline)");
    }
    return;
  }
  if (workload.loader != LoaderKind::kRingside) {
    reader.fail("loader",
                "HTTP/2 workloads are loaded by ringside load (loader = \"ringside\"): "
                "the external loaders are run as HTTP/1.1 clients");
  }
  if (workload.pipeline > 1) reader.fail("pipeline", "pipelining is HTTP/1.1's: use streams");
  if (!workload.keep_alive) reader.fail("keep_alive", "HTTP/2 keeps its connections open");
}

void read_tls_key(const Reader& reader, Scenario& scenario) {
  const std::string text = reader.string("tls_key").value_or("ecdsa-p256");
  const std::optional<TlsKey> key = tls_key_from_name(text);
  if (!key) {
    reader.fail("tls_key", "must be \"ecdsa-p256\" (the default) or \"rsa2048\": the key of the "
                           "run's throwaway server certificate, not \"" + text + "\"");
  }
  scenario.tls_key = *key;
}

Workload read_workload(const toml::table& table, const std::string& source, std::size_t index) {
  const Reader reader(table, source, "workload[" + std::to_string(index) + "].");
  reader.refuse_unknown(kWorkloadFields);
  Workload workload;
  workload.name = reader.string("name").value_or("");
  if (workload.name.empty() ||
      workload.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
    reader.fail("name", "required: lower-case letters, digits, '-' and '_' (it names files)");
  }
  workload.path = reader.string("path").value_or("/");
  if (workload.path.empty() || workload.path.front() != '/') {
    reader.fail("path", "must start with '/' (a path such as \"/\" or a pattern \"/users/{1..10000}\")");
  }
  try {
    (void)expand_path(workload.path);
  } catch (const std::invalid_argument& error) {
    reader.fail("path", error.what());
  }
  workload.method = reader.string("method").value_or("GET");
  if (std::string problem = load::check_method(workload.method); !problem.empty()) {
    reader.fail("method", problem);
  }
  workload.headers = reader.strings("headers").value_or(std::vector<std::string>{});
  for (const std::string& header : workload.headers) {
    if (header.find(':') == std::string::npos) reader.fail("headers", "'" + header + "' must be \"Name: value\"");
    if (std::string problem = load::check_header(header); !problem.empty()) reader.fail("headers", problem);
  }
  workload.body = reader.string("body").value_or("");
  read_connections(reader, workload);
  read_mode(reader, workload);
  read_loader(reader, workload);
  workload.loader_threads =
      static_cast<unsigned>(reader.integer("loader_threads", 1, 1024).value_or(1));
  workload.requests =
      static_cast<std::uint64_t>(reader.integer("requests", 0, std::int64_t{1} << 40).value_or(0));
  for (unsigned connections : workload.connections) {
    if (workload.requests > 0 && workload.requests < connections) {
      reader.fail("requests", "must be at least every level of connections (" +
                                  std::to_string(connections) + "): each connection needs a request");
    }
  }
  workload.keep_alive = reader.boolean("keep_alive").value_or(true);
  workload.pipeline = static_cast<unsigned>(reader.integer("pipeline", 1, 64).value_or(1));
  if (!workload.keep_alive && workload.pipeline > 1) {
    reader.fail("pipeline", "pipelining needs keep_alive = true");
  }
  read_protocol(reader, workload);
  workload.tls_resume = reader.number("tls_resume", 0, 1, "from 0 to 1").value_or(0);
  if (workload.tls_resume > 0 && !over_tls(workload.protocol)) {
    reader.fail("tls_resume", "resuming TLS sessions needs protocol = \"https\" or \"h2\"");
  }
  if (workload.tls_resume > 0 && workload.loader != LoaderKind::kRingside) {
    reader.fail("tls_resume", "only ringside load can be told to resume sessions (loader = \"ringside\")");
  }
  return workload;
}

void read_workloads(const Reader& reader, const std::string& source, Scenario& scenario) {
  if (reader.table().get("workloads") != nullptr) {
    reader.fail("workloads", "is written [[workload]] (one table per workload)");
  }
  const toml::node* node = reader.table().get("workload");
  if (node == nullptr) reader.fail("workload", "at least one [[workload]] is required");
  const toml::array* array = node->as_array();
  if (array == nullptr || array->empty() || !array->is_array_of_tables()) {
    reader.fail("workload", "must be tables written [[workload]]");
  }
  std::set<std::string> names;
  std::size_t index = 0;
  for (const toml::node& item : *array) {
    Workload workload = read_workload(*item.as_table(), source, index);
    if (!names.insert(workload.name).second) {
      Reader(*item.as_table(), source, "workload[" + std::to_string(index) + "].")
          .fail("name", "'" + workload.name + "' is used by an earlier workload");
    }
    scenario.workloads.push_back(std::move(workload));
    ++index;
  }
}

bool is_ip_literal(const std::string& text) {
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 || inet_pton(AF_INET6, text.c_str(), address) == 1;
}

// What --tag takes: 1-64 of A-Z a-z 0-9 . _ - (load/load_config.hpp); anything else becomes '_'.
std::string tag_of(std::string_view name) {
  std::string tag;
  for (char c : name.substr(0, 64)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    tag += ok ? c : '_';
  }
  return tag.empty() ? "host" : tag;
}

// A host as written in `hosts`: "host", "user@host", "user@host:port" or "user@[v6]:port".
LoadHost host_of(const Reader& reader, const std::string& text) {
  LoadHost host;
  if (text.empty() || text.front() == '-' || text.find_first_of(" \t\n'\"`$;&|<>") != std::string::npos) {
    reader.fail("hosts", "'" + text + "' is not a host: write \"host\", \"user@host\" or \"user@host:port\"");
  }
  const std::size_t at = text.rfind('@');
  const std::string user = at == std::string::npos ? "" : text.substr(0, at);
  std::string address = at == std::string::npos ? text : text.substr(at + 1);
  std::string port;
  if (!address.empty() && address.front() == '[') {
    const std::size_t close = address.find(']');
    if (close == std::string::npos) reader.fail("hosts", "'" + text + "': '[' without ']'");
    if (close + 1 < address.size()) {
      if (address[close + 1] != ':') reader.fail("hosts", "'" + text + "': ':port' after ']'");
      port = address.substr(close + 2);
    }
    address = address.substr(1, close - 1);
  } else if (std::count(address.begin(), address.end(), ':') == 1) {
    port = address.substr(address.find(':') + 1);
    address = address.substr(0, address.find(':'));
  }
  if (address.empty()) reader.fail("hosts", "'" + text + "' names no host");
  if (!port.empty() && (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
                        std::stoul(port) == 0 || std::stoul(port) > 65535)) {
    reader.fail("hosts", "'" + text + "': the port must be from 1 to 65535");
  }
  host.name = address;
  host.destination = ssh_destination(user, address);
  host.port = port;
  return host;
}

// engine = "ssh": hosts or an inventory, and a server_address they can reach.
void check_ssh_setup(const Reader& reader, const LoadSetup& load, bool hosts_given) {
  if (hosts_given == !load.inventory.empty()) {
    reader.fail(hosts_given ? "inventory" : "hosts",
                "engine = \"ssh\" takes either hosts = [\"user@host\", ...] or inventory = \"FILE\"");
  }
  if (!reader.find("server_address")) {
    reader.fail("server_address", "required with engine = \"ssh\": the address the server listens "
                                  "on and the load hosts connect to");
  }
  if (load.server_address.starts_with("127.") || load.server_address == "::1") {
    reader.fail("server_address", "is a loopback address, which the load hosts cannot reach: give "
                                  "this machine's address on their network");
  }
  for (const std::string& option : load.ssh_options) {
    if (option.empty()) reader.fail("ssh_options", "holds an empty string");
  }
  if (!load.remote_binary.empty() &&
      (load.remote_binary.front() != '/' || load.remote_binary.find_first_of(" \t\n'\"`$;&|<>\\") != std::string::npos)) {
    reader.fail("remote_binary", "must be an absolute path without blanks or shell characters");
  }
}

// The load hosts, from `hosts` or the inventory's group, each with a tag of its own.
void read_hosts(const Reader& reader, const std::string& source,
                const std::optional<std::vector<std::string>>& hosts, LoadSetup& load) {
  if (hosts) {
    if (hosts->empty()) reader.fail("hosts", "lists no host");
    for (const std::string& text : *hosts) load.hosts.push_back(host_of(reader, text));
  } else {
    std::filesystem::path path = load.inventory;
    if (path.is_relative()) path = std::filesystem::path(source).parent_path() / path;
    std::ifstream in(path);
    if (!in) reader.fail("inventory", "cannot read " + path.string() + " (does it exist?)");
    std::stringstream text;
    text << in.rdbuf();
    try {
      load.hosts = read_inventory(text.str(), path.string(), load.group);
    } catch (const std::invalid_argument& error) {
      reader.fail("inventory", error.what());
    }
  }
  // Each host's tag names its results; two generators on one machine get -2, -3, ...
  std::map<std::string, int> seen;
  for (LoadHost& host : load.hosts) {
    host.name = tag_of(host.name);
    const int n = ++seen[host.name];
    if (n > 1) host.name += "-" + std::to_string(n);
  }
}

// What the ssh engine cannot run: another loader, a path pattern.
void check_ssh_workloads(const Reader& reader, const Scenario& scenario) {
  for (const Workload& workload : scenario.workloads) {
    if (workload.loader != LoaderKind::kRingside) {
      reader.fail("engine", "\"ssh\" runs ringside load on the hosts; workload '" + workload.name +
                                "' has loader = \"" + std::string(loader_name(workload.loader)) +
                                "\", which runs here only");
    }
    if (workload.path.find('{') != std::string::npos) {
      reader.fail("engine", "\"ssh\" gives each host one URL; workload '" + workload.name +
                                "' has a path pattern, which runs with engine = \"local\" only");
    }
  }
}

void read_load(const Reader& top, const std::string& source, Scenario& scenario) {
  const toml::node* node = top.table().get("load");
  if (node == nullptr) return;
  if (!node->is_table()) top.fail("load", "is a table: [load] with engine = \"local\" or \"ssh\"");
  const Reader reader(*node->as_table(), source, "load.");
  reader.refuse_unknown(kLoadFields);
  LoadSetup& load = scenario.load;
  load.engine = reader.string("engine").value_or("local");
  if (load.engine != "local" && load.engine != "ssh") {
    reader.fail("engine", "must be \"local\" (the harness's own loader) or \"ssh\" (ringside load "
                          "on the hosts or the inventory's group, over ssh)");
  }
  const auto hosts = reader.strings("hosts");
  load.inventory = reader.string("inventory").value_or("");
  load.group = reader.string("group").value_or("generators");
  load.ssh_options = reader.strings("ssh_options").value_or(std::vector<std::string>{});
  load.remote_binary = reader.string("remote_binary").value_or("");
  if (auto lead = read_duration(reader, "start_lead", 0.01)) load.start_lead_s = *lead;
  if (load.start_lead_s > 600) reader.fail("start_lead", "must be at most 10m");
  if (auto address = reader.string("server_address")) {
    if (!is_ip_literal(*address)) {
      reader.fail("server_address", "must be an IP address the server listens on and the load hosts "
                                    "reach (\"10.0.0.10\", \"fd00::10\"), not \"" + *address + "\"");
    }
    load.server_address = *address;
  }
  if (!load.remote()) {
    for (std::string_view field : {"hosts", "inventory", "ssh_options", "remote_binary", "start_lead"}) {
      if (reader.find(field) != nullptr) reader.fail(field, "needs engine = \"ssh\"");
    }
    return;
  }
  check_ssh_setup(reader, load, hosts.has_value());
  read_hosts(reader, source, hosts, load);
  check_ssh_workloads(reader, scenario);
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string& source) {
  toml::table table;
  try {
    table = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    throw ScenarioError(source + ":" + std::to_string(error.source().begin.line) +
                        ": not valid TOML: " + std::string(error.description()));
  }
  const Reader reader(table, source);
  reader.refuse_unknown(kScenarioFields);
  Scenario scenario;
  scenario.file = source;
  scenario.name = reader.string("name").value_or("default");
  if (scenario.name.empty() ||
      scenario.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos) {
    reader.fail("name", "lower-case letters, digits, '-' and '_' (it names the results folder)");
  }
  scenario.description = reader.string("description").value_or("");
  scenario.contestants = reader.strings("contestants").value_or(std::vector<std::string>{});
  scenario.baseline = reader.string("baseline").value_or("ringside");
  read_rounds(reader, scenario);
  scenario.warmup_s = read_duration(reader, "warmup", 0).value_or(2);
  scenario.duration_s = read_duration(reader, "duration", 0.001).value_or(5);
  scenario.settle_s = read_duration(reader, "settle", 0).value_or(1);
  read_cpus(reader, "server_cpus", scenario.server_cpus);
  read_cpus(reader, "load_cpus", scenario.load_cpus);
  scenario.threads = static_cast<unsigned>(reader.integer("threads", 1, 1024).value_or(1));
  read_database(reader, scenario);
  scenario.equal_load = reader.boolean("equal_load").value_or(true);
  scenario.equal_load_fraction =
      reader.number("equal_load_fraction", 0.01, 1, "from 0.01 to 1").value_or(0.5);
  read_tls_key(reader, scenario);
  read_workloads(reader, source, scenario);
  read_load(reader, source, scenario);
  return scenario;
}

Scenario load_scenario(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path.string() + ": cannot read the scenario file (does it exist?)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), path.string());
}

fs::path default_scenario_path() {
  const DataFolder& data = data_folder();
  if (data.root.empty()) return {};
  std::error_code error;
  const fs::path file = data.root / "scenarios" / "default.toml";
  return fs::is_regular_file(file, error) ? file : fs::path();
}

std::optional<double> parse_duration(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 ||
                                  text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
  if (error != std::errc() || end != text.data() + digits || !std::isfinite(value)) {
    return std::nullopt;
  }
  const std::string_view unit = text.substr(digits);
  if (unit.empty() || unit == "s") return value;
  if (unit == "ms") return value / 1000;
  if (unit == "us") return value / 1e6;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  return std::nullopt;
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::set<int> cpus;
  if (text.empty()) return std::nullopt;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) return std::nullopt;
    const std::size_t dash = item.find('-');
    const std::string_view first_text = item.substr(0, dash);
    const std::string_view last_text = dash == std::string_view::npos ? first_text : item.substr(dash + 1);
    int first = -1, last = -1;
    const auto a = std::from_chars(first_text.data(), first_text.data() + first_text.size(), first);
    const auto b = std::from_chars(last_text.data(), last_text.data() + last_text.size(), last);
    if (first_text.empty() || last_text.empty() || a.ec != std::errc() || b.ec != std::errc() ||
        a.ptr != first_text.data() + first_text.size() ||
        b.ptr != last_text.data() + last_text.size() || first < 0 || last < first || last > 4095) {
      return std::nullopt;
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::vector<std::string> expand_path(std::string_view path) {
  const std::size_t open = path.find('{');
  if (open == std::string_view::npos) {
    if (path.find('}') != std::string_view::npos) throw std::invalid_argument("'}' without '{'");
    return {std::string(path)};
  }
  const std::size_t close = path.find('}', open);
  const std::string_view range = path.substr(open + 1, close == std::string_view::npos ? 0 : close - open - 1);
  const std::size_t dots = range.find("..");
  const std::string what = "a pattern is one {A..B} range of integers with A <= B, such as "
                           "/users/{1..10000}";
  if (close == std::string_view::npos || dots == std::string_view::npos ||
      path.find('{', close) != std::string_view::npos ||
      path.find('}', close + 1) != std::string_view::npos) {
    throw std::invalid_argument(what);
  }
  std::uint64_t first = 0, last = 0;
  const std::string_view first_text = range.substr(0, dots), last_text = range.substr(dots + 2);
  const auto a = std::from_chars(first_text.data(), first_text.data() + first_text.size(), first);
  const auto b = std::from_chars(last_text.data(), last_text.data() + last_text.size(), last);
  if (first_text.empty() || last_text.empty() || a.ec != std::errc() || b.ec != std::errc() ||
      a.ptr != first_text.data() + first_text.size() ||
      b.ptr != last_text.data() + last_text.size() || last < first) {
    throw std::invalid_argument(what);
  }
  if (last - first >= kMaxExpandedPaths) {
    throw std::invalid_argument("a pattern may stand for at most 1000000 paths");
  }
  std::vector<std::string> paths;
  paths.reserve(last - first + 1);
  const std::string_view before = path.substr(0, open), after = path.substr(close + 1);
  for (std::uint64_t value = first; value <= last; ++value) {
    paths.push_back(std::string(before) + std::to_string(value) + std::string(after));
  }
  return paths;
}

std::optional<Route> route_of_path(std::string_view path) {
  const std::string_view plain = path.substr(0, path.find('?'));
  if (plain == "/") return Route::kHello;
  if (plain == "/json") return Route::kJson;
  if (plain.starts_with("/users/")) return Route::kUsers;
  if (plain == "/db") return Route::kDb;
  return std::nullopt;
}

bool Scenario::uses(Protocol protocol) const {
  return std::any_of(workloads.begin(), workloads.end(),
                     [&](const Workload& workload) { return workload.protocol == protocol; });
}

bool runs_workload(const Contestant& contestant, const Workload& workload) {
  // A server whose manifest says it cannot answer pipelined requests (bun) gets no pipelined
  // workload: its errors would say nothing about its speed.
  if (workload.pipeline > 1 && !contestant.manifest.pipelining) return false;
  const auto route = route_of_path(workload.path);
  return !route || contestant.claims(*route);
}

}  // namespace ringside::harness
