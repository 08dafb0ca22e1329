#include "harness/config/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ringside::harness {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "s.toml");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

TEST(Scenario, EveryFieldHasADefault) {
  const Scenario scenario = parse_scenario("[[workload]]\nname = \"hello\"\n", "s.toml");
  EXPECT_EQ(scenario.name, "default");
  EXPECT_EQ(scenario.baseline, "ringside");
  EXPECT_EQ(scenario.rounds, 3u);
  EXPECT_DOUBLE_EQ(scenario.warmup_s, 2);
  EXPECT_DOUBLE_EQ(scenario.duration_s, 5);
  EXPECT_DOUBLE_EQ(scenario.settle_s, 1);
  EXPECT_EQ(scenario.server_cpus, "0");
  EXPECT_EQ(scenario.load_cpus, "1");
  EXPECT_EQ(scenario.database, DatabaseKind::kTemp);
  EXPECT_TRUE(scenario.equal_load);
  EXPECT_DOUBLE_EQ(scenario.equal_load_fraction, 0.5);
  ASSERT_EQ(scenario.workloads.size(), 1u);
  const Workload& w = scenario.workloads[0];
  EXPECT_EQ(w.path, "/");
  EXPECT_EQ(w.method, "GET");
  EXPECT_EQ(w.connections, (std::vector<unsigned>{10, 100, 1000}));
  EXPECT_EQ(w.mode, LoadMode::kClosed);
  EXPECT_EQ(w.loader, LoaderKind::kRingside);
  EXPECT_EQ(w.pipeline, 1u);
  EXPECT_TRUE(w.keep_alive);
  EXPECT_EQ(w.protocol, Protocol::kHttp);
  EXPECT_EQ(scenario.tls_key, TlsKey::kEcdsaP256);
  EXPECT_FALSE(scenario.uses(Protocol::kHttps));
}

TEST(Scenario, HttpsWorkloadsAndTheirKey) {
  const Scenario s = parse_scenario(R"(
tls_key = "rsa2048"
[[workload]]
name = "plain"
[[workload]]
name = "tls"
protocol = "https"
keep_alive = false
)", "s.toml");
  ASSERT_EQ(s.workloads.size(), 2u);
  EXPECT_EQ(s.workloads[0].protocol, Protocol::kHttp);
  EXPECT_EQ(s.workloads[1].protocol, Protocol::kHttps);
  EXPECT_EQ(s.tls_key, TlsKey::kRsa2048);
  EXPECT_TRUE(s.uses(Protocol::kHttp));
  EXPECT_TRUE(s.uses(Protocol::kHttps));
  EXPECT_EQ(parse_scenario("tls_key = \"ecdsa-p256\"\n[[workload]]\nname = \"a\"\nprotocol = \"http\"\n",
                           "s.toml").tls_key,
            TlsKey::kEcdsaP256);
}

TEST(Scenario, BadProtocolOrKeyNamesTheField) {
  EXPECT_EQ(
      error_of("[[workload]]\nname = \"a\"\n[[workload]]\nname = \"b\"\nprotocol = \"h3\"\n"),
      "s.toml:5: field 'workload[1].protocol': must be \"http\" (plain HTTP/1.1), \"https\" "
      "(HTTP/1.1 over TLS, with the run's throwaway certificate), \"h2c\" (HTTP/2 on the plain "
      "port, prior knowledge) or \"h2\" (HTTP/2 over TLS by ALPN), not \"h3\"");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nprotocol = 443\n"),
            "s.toml:3: field 'workload[0].protocol': must be a string, not an integer");
  EXPECT_EQ(error_of("tls_key = \"rsa4096\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'tls_key': must be \"ecdsa-p256\" (the default) or \"rsa2048\": the key "
            "of the run's throwaway server certificate, not \"rsa4096\"");
}

TEST(Scenario, TlsResumeIsAShareForRingsideLoadOverHttps) {
  const Scenario s = parse_scenario(
      "[[workload]]\nname = \"a\"\nprotocol = \"https\"\n"
      "[[workload]]\nname = \"b\"\nprotocol = \"https\"\nkeep_alive = false\ntls_resume = 0.25\n",
      "s.toml");
  EXPECT_EQ(s.workloads[0].tls_resume, 0.0);
  EXPECT_EQ(s.workloads[1].tls_resume, 0.25);
  EXPECT_EQ(
      error_of("[[workload]]\nname = \"a\"\ntls_resume = 1\n"),
      "s.toml:3: field 'workload[0].tls_resume': resuming TLS sessions needs protocol = \"https\" "
      "or \"h2\"");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nprotocol = \"https\"\ntls_resume = 1.5\n"),
            "s.toml:4: field 'workload[0].tls_resume': must be from 0 to 1");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nprotocol = \"https\"\nloader = \"wrk\"\ntls_resume = 1\n"),
            "s.toml:5: field 'workload[0].tls_resume': only ringside load can be told to resume "
            "sessions (loader = \"ringside\")");
}

TEST(Scenario, Http2WorkloadsAndTheirStreams) {
  const Scenario s = parse_scenario(R"(
[[workload]]
name = "plain"
protocol = "h2c"
[[workload]]
name = "tls"
protocol = "h2"
streams = 100
tls_resume = 0.5
)",
                                    "s.toml");
  ASSERT_EQ(s.workloads.size(), 2u);
  EXPECT_EQ(s.workloads[0].protocol, Protocol::kH2c);
  EXPECT_EQ(s.workloads[0].streams, 1u);
  EXPECT_EQ(s.workloads[1].protocol, Protocol::kH2);
  EXPECT_EQ(s.workloads[1].streams, 100u);
  EXPECT_EQ(s.workloads[1].tls_resume, 0.5);
  EXPECT_TRUE(s.uses(Protocol::kH2c));
  EXPECT_FALSE(s.uses(Protocol::kHttps));
  EXPECT_EQ(
      error_of("[[workload]]\nname = \"a\"\nstreams = 4\n"),
      "s.toml:3: field 'workload[0].streams': streams are HTTP/2's: set protocol = \"h2c\" or "
      "\"h2\" (HTTP/1.1 has pipeline)");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nprotocol = \"h2c\"\nstreams = 0\n"),
            "s.toml:4: field 'workload[0].streams': must be from 1 to 1000");
  EXPECT_NE(error_of("[[workload]]\nname = \"a\"\nprotocol = \"h2c\"\nloader = \"h2load\"\n")
                .find("field 'workload[0].loader': HTTP/2 workloads are loaded by ringside load"),
            std::string::npos);
  EXPECT_NE(error_of("[[workload]]\nname = \"a\"\nprotocol = \"h2\"\npipeline = 4\n")
                .find("field 'workload[0].pipeline': pipelining is HTTP/1.1's"),
            std::string::npos);
  EXPECT_NE(error_of("[[workload]]\nname = \"a\"\nprotocol = \"h2\"\nkeep_alive = false\n")
                .find("field 'workload[0].keep_alive'"),
            std::string::npos);
}

TEST(Scenario, ReadsEveryField) {
  const Scenario s = parse_scenario(R"(
name = "tiny"
description = "two of them"
contestants = ["good", "ringside"]
baseline = "good"
rounds = 2
warmup = "500ms"
duration = "1s"
settle = "0s"
server_cpus = "0"
load_cpus = "0-1"
threads = 2
database = "postgres://u@127.0.0.1:5/x"
equal_load = false
equal_load_fraction = 0.25

[[workload]]
name = "users"
path = "/users/{1..3}"
method = "POST"
headers = ["X-A: b"]
body = "{}"
connections = [1, 2]
mode = "open"
rate = 100
loader_threads = 2
requests = 50
keep_alive = true
pipeline = 4
)", "s.toml");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.contestants, (std::vector<std::string>{"good", "ringside"}));
  EXPECT_EQ(s.rounds, 2u);
  EXPECT_DOUBLE_EQ(s.warmup_s, 0.5);
  EXPECT_DOUBLE_EQ(s.settle_s, 0);
  EXPECT_EQ(s.threads, 2u);
  EXPECT_EQ(s.database, DatabaseKind::kUrl);
  EXPECT_EQ(s.database_url, "postgres://u@127.0.0.1:5/x");
  EXPECT_FALSE(s.equal_load);
  const Workload& w = s.workloads.at(0);
  EXPECT_EQ(w.method, "POST");
  EXPECT_EQ(w.headers, (std::vector<std::string>{"X-A: b"}));
  EXPECT_EQ(w.connections, (std::vector<unsigned>{1, 2}));
  EXPECT_DOUBLE_EQ(w.rate, 100);
  EXPECT_EQ(w.requests, 50u);
  EXPECT_EQ(w.pipeline, 4u);
}

TEST(Scenario, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("rounds = 3\nroundz = 2\n[[workload]]\nname = \"a\"\n"),
            "s.toml:2: field 'roundz': unknown field (known: name, description, contestants, "
            "baseline, rounds, min_rounds, max_rounds, target, confidence, time_budget, warmup, "
            "duration, settle, server_cpus, load_cpus, threads, database, equal_load, "
            "equal_load_fraction, tls_key, load, workload)");
  EXPECT_EQ(error_of("duration = \"5 parsecs\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'duration': must be a duration such as \"500ms\", \"2s\" or \"1m\", "
            "at least 1ms and at most 24h (got \"5 parsecs\")");
  EXPECT_EQ(error_of("rounds = 0\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'rounds': must be from 1 to 100");
  EXPECT_EQ(error_of("server_cpus = \"0-\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'server_cpus': must be a CPU list such as \"0\", \"0-3\" or \"0,2\" (got \"0-\")");
  EXPECT_EQ(error_of("database = \"mysql\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'database': must be \"temp\" (a throwaway seeded PostgreSQL), \"none\", "
            "or a postgres:// URL");
  EXPECT_EQ(error_of("name = \"x\"\n"), "s.toml:1: field 'workload': at least one [[workload]] is required");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nconnections = [10, 0]\n"),
            "s.toml:3: field 'workload[0].connections': must be an array of connection counts from "
            "1 to 1000000, such as [10, 100]");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\n[[workload]]\nname = \"b\"\nmode = \"opne\"\n"),
            "s.toml:5: field 'workload[1].mode': must be \"closed\" (fixed connections, as fast as "
            "they go) or \"open\" (a fixed request rate, with rate = N)");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nmode = \"open\"\n"),
            "s.toml:1: field 'workload[0].rate': an open workload needs rate = requests/s, at least 0.01");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nloader = \"jmeter\"\n"),
            "s.toml:3: field 'workload[0].loader': must be one of ringside, wrk, ab, h2load, hey");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\npath = \"/u/{1..}\"\n"),
            "s.toml:3: field 'workload[0].path': a pattern is one {A..B} range of integers with "
            "A <= B, such as /users/{1..10000}");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\npath = \"/u/{1..5}\"\nloader = \"wrk\"\n"),
            "s.toml:3: field 'workload[0].path': a pattern needs loader = \"ringside\" (external "
            "loaders take one URL)");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:4: field 'workload[1].name': 'a' is used by an earlier workload");
  EXPECT_EQ(error_of("[[workload]]\nname = \"a\"\nrequests = 5\nconnections = [10]\n"),
            "s.toml:3: field 'workload[0].requests': must be at least every level of connections "
            "(10): each connection needs a request");
  EXPECT_EQ(error_of("rounds = \"three\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'rounds': must be \"auto\" or a number of rounds from 1 to 100 (got "
            "\"three\")");
  EXPECT_EQ(error_of("rounds = = 3\n").rfind("s.toml:1: not valid TOML: ", 0), 0u);
}

TEST(Scenario, AutoRoundsAndTheirStoppingRule) {
  const Scenario byDefault = parse_scenario("[[workload]]\nname = \"a\"\n", "s.toml");
  EXPECT_TRUE(byDefault.auto_rounds);
  EXPECT_EQ(byDefault.rounds, 3u);
  EXPECT_EQ(byDefault.max_rounds, 8u);
  EXPECT_DOUBLE_EQ(byDefault.target, 0.03);
  EXPECT_DOUBLE_EQ(byDefault.confidence, 0.75);
  EXPECT_DOUBLE_EQ(byDefault.time_budget_s, 300);
  const Scenario tuned = parse_scenario(
      "rounds = \"auto\"\nmin_rounds = 4\nmax_rounds = 12\ntarget = \"2.5%\"\nconfidence = 0.9\n"
      "time_budget = \"10m\"\n[[workload]]\nname = \"a\"\n",
      "s.toml");
  EXPECT_TRUE(tuned.auto_rounds);
  EXPECT_EQ(tuned.rounds, 4u);
  EXPECT_EQ(tuned.max_rounds, 12u);
  EXPECT_DOUBLE_EQ(tuned.target, 0.025);
  EXPECT_DOUBLE_EQ(tuned.confidence, 0.9);
  EXPECT_DOUBLE_EQ(tuned.time_budget_s, 600);
  const Scenario fixed = parse_scenario("rounds = 5\n[[workload]]\nname = \"a\"\n", "s.toml");
  EXPECT_FALSE(fixed.auto_rounds);
  EXPECT_EQ(fixed.rounds, 5u);
  EXPECT_EQ(error_of("rounds = 5\ntarget = \"3%\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:2: field 'target': goes with rounds = \"auto\" (rounds is a number here)");
  EXPECT_EQ(error_of("target = 0.03\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'target': must be a percentage from 0.1% to 50%, such as \"3%\"");
  EXPECT_EQ(error_of("target = \"80%\"\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'target': must be a percentage from 0.1% to 50%, such as \"3%\" (got "
            "\"80%\")");
  EXPECT_EQ(error_of("min_rounds = 5\nmax_rounds = 4\n[[workload]]\nname = \"a\"\n"),
            "s.toml:2: field 'max_rounds': must be from 5 to 100");
  EXPECT_EQ(error_of("confidence = 1\n[[workload]]\nname = \"a\"\n"),
            "s.toml:1: field 'confidence': must be from 0.5 to 0.99");
}

TEST(Scenario, Durations) {
  EXPECT_DOUBLE_EQ(*parse_duration("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_duration("2s"), 2);
  EXPECT_DOUBLE_EQ(*parse_duration("1m"), 60);
  EXPECT_DOUBLE_EQ(*parse_duration("1.5"), 1.5);
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration("2 s"));
  EXPECT_FALSE(parse_duration("2d"));
}

TEST(Scenario, CpuLists) {
  EXPECT_EQ(*parse_cpu_list("0"), (std::vector<int>{0}));
  EXPECT_EQ(*parse_cpu_list("2,0-1,1"), (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("1-0"));
  EXPECT_FALSE(parse_cpu_list("a"));
  EXPECT_FALSE(parse_cpu_list("0,"));
}

TEST(Scenario, PatternsExpandInOrder) {
  EXPECT_EQ(expand_path("/"), (std::vector<std::string>{"/"}));
  EXPECT_EQ(expand_path("/users/{1..3}"),
            (std::vector<std::string>{"/users/1", "/users/2", "/users/3"}));
  EXPECT_EQ(expand_path("/a/{9..10}/b?x=1"), (std::vector<std::string>{"/a/9/b?x=1", "/a/10/b?x=1"}));
  EXPECT_EQ(expand_path("/users/{1..10000}").size(), 10000u);
  EXPECT_THROW(expand_path("/a/{3..1}"), std::invalid_argument);
  EXPECT_THROW(expand_path("/a/{1..2}/{1..2}"), std::invalid_argument);
  EXPECT_THROW(expand_path("/a/{x..2}"), std::invalid_argument);
  EXPECT_THROW(expand_path("/a/}"), std::invalid_argument);
  EXPECT_THROW(expand_path("/a/{0..1000000}"), std::invalid_argument);
}

TEST(Scenario, RoutesOfPaths) {
  EXPECT_EQ(route_of_path("/"), Route::kHello);
  EXPECT_EQ(route_of_path("/json"), Route::kJson);
  EXPECT_EQ(route_of_path("/users/{1..10}"), Route::kUsers);
  EXPECT_EQ(route_of_path("/?x"), Route::kHello);
  EXPECT_EQ(route_of_path("/db"), Route::kDb);
  EXPECT_FALSE(route_of_path("/other"));
  Contestant nginx;
  nginx.manifest.routes = {Route::kHello, Route::kJson};
  Workload users;
  users.path = "/users/{1..10}";
  Workload other;
  other.path = "/static.txt";
  EXPECT_FALSE(runs_workload(nginx, users));
  EXPECT_TRUE(runs_workload(nginx, other));
  Workload pipelined;
  pipelined.path = "/";
  pipelined.pipeline = 16;
  EXPECT_TRUE(runs_workload(nginx, pipelined));
  nginx.manifest.pipelining = false;  // as bun's manifest says
  EXPECT_FALSE(runs_workload(nginx, pipelined));
  Workload plain;
  plain.path = "/";
  EXPECT_TRUE(runs_workload(nginx, plain));
}

TEST(Scenario, LoadDefaultsToTheLocalEngine) {
  const Scenario s = parse_scenario("[[workload]]\nname = \"hello\"\n", "s.toml");
  EXPECT_EQ(s.load.engine, "local");
  EXPECT_FALSE(s.load.remote());
  EXPECT_EQ(s.load.server_address, "127.0.0.1");
  EXPECT_TRUE(s.load.hosts.empty());
}

// A local run chooses where its contestants listen (and its loader connects) too: another loopback
// address, or an IPv6 one; it needs no load hosts.
TEST(Scenario, LocalEngineTakesAServerAddress) {
  const Scenario s = parse_scenario(
      "[load]\nserver_address = \"127.0.0.2\"\n[[workload]]\nname = \"hello\"\n", "s.toml");
  EXPECT_FALSE(s.load.remote());
  EXPECT_EQ(s.load.server_address, "127.0.0.2");
  EXPECT_TRUE(s.load.hosts.empty());
  const Scenario v6 = parse_scenario(
      "[load]\nengine = \"local\"\nserver_address = \"::1\"\n[[workload]]\nname = \"hello\"\n",
      "s.toml");
  EXPECT_EQ(v6.load.server_address, "::1");
}

TEST(Scenario, LoadHostsOverSsh) {
  const Scenario s = parse_scenario(R"(
[load]
engine = "ssh"
hosts = ["10.0.0.21", "bob@load2:2222", "root@[fd00::3]:22", "10.0.0.21"]
ssh_options = ["-F", "ssh_config"]
server_address = "10.0.0.10"
remote_binary = "/opt/ringside"
start_lead = "500ms"

[[workload]]
name = "hello"
)",
                                    "s.toml");
  EXPECT_TRUE(s.load.remote());
  ASSERT_EQ(s.load.hosts.size(), 4u);
  EXPECT_EQ(s.load.hosts[0].name, "10.0.0.21");
  EXPECT_EQ(s.load.hosts[0].destination, "10.0.0.21");
  EXPECT_EQ(s.load.hosts[1].name, "load2");
  EXPECT_EQ(s.load.hosts[1].destination, "bob@load2");
  EXPECT_EQ(s.load.hosts[1].port, "2222");
  EXPECT_EQ(s.load.hosts[2].name, "fd00__3");
  EXPECT_EQ(s.load.hosts[2].destination, "root@fd00::3");
  EXPECT_EQ(s.load.hosts[3].name, "10.0.0.21-2");  // two generators on one machine
  EXPECT_EQ(s.load.ssh_options, (std::vector<std::string>{"-F", "ssh_config"}));
  EXPECT_EQ(s.load.server_address, "10.0.0.10");
  EXPECT_EQ(s.load.remote_binary, "/opt/ringside");
  EXPECT_DOUBLE_EQ(s.load.start_lead_s, 0.5);
}

TEST(Scenario, LoadHostsFromAnInventory) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ringside-scenario-inventory";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "inv.ini") << "[gens]\ng1 ansible_host=10.0.0.21 ansible_user=root\n";
    std::ofstream(dir / "s.toml") << "[load]\nengine = \"ssh\"\ninventory = \"inv.ini\"\ngroup = \"gens\"\n"
                                     "server_address = \"10.0.0.10\"\n[[workload]]\nname = \"hello\"\n";
  }
  const Scenario s = load_scenario(dir / "s.toml");  // the inventory beside the scenario
  ASSERT_EQ(s.load.hosts.size(), 1u);
  EXPECT_EQ(s.load.hosts[0].name, "g1");
  EXPECT_EQ(s.load.hosts[0].destination, "root@10.0.0.21");
  std::filesystem::remove_all(dir);
}

TEST(Scenario, BadLoadValuesNameTheField) {
  const std::string workload = "[[workload]]\nname = \"hello\"\n";
  auto load = [&](const std::string& table, const std::string& more = "") {
    return error_of("[load]\n" + table + "\n" + workload + more);
  };
  EXPECT_EQ(load("engine = \"k8s\""),
            "s.toml:2: field 'load.engine': must be \"local\" (the harness's own loader) or \"ssh\" "
            "(ringside load on the hosts or the inventory's group, over ssh)");
  EXPECT_NE(load("hosts = [\"a\"]").find("field 'load.hosts': needs engine = \"ssh\""), std::string::npos);
  const std::string ssh = "engine = \"ssh\"\nserver_address = \"10.0.0.10\"\n";
  EXPECT_NE(load(ssh).find("field 'load.hosts': engine = \"ssh\" takes either hosts"), std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]\ninventory = \"x\"").find("field 'load.inventory'"), std::string::npos);
  EXPECT_NE(load(ssh + "hosts = []").find("field 'load.hosts': lists no host"), std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"-oProxyCommand=x\"]").find("field 'load.hosts'"), std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a:99999\"]").find("field 'load.hosts'"), std::string::npos);
  EXPECT_NE(load(ssh + "inventory = \"/nonexistent.ini\"").find("field 'load.inventory': cannot read"),
            std::string::npos);
  EXPECT_NE(load("engine = \"ssh\"\nhosts = [\"a\"]").find("field 'load.server_address': required"),
            std::string::npos);
  EXPECT_NE(load("engine = \"ssh\"\nhosts = [\"a\"]\nserver_address = \"127.0.0.1\"").find("loopback"),
            std::string::npos);
  EXPECT_NE(load("server_address = \"api.internal\"").find("field 'load.server_address': must be an IP"),
            std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]\nremote_binary = \"tmp/x\"").find("field 'load.remote_binary'"),
            std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]\nstart_lead = \"0s\"").find("field 'load.start_lead'"),
            std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]\nwhat = 1").find("field 'load.what': unknown field"),
            std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]", "loader = \"wrk\"\n").find("field 'load.engine'"),
            std::string::npos);
  EXPECT_NE(load(ssh + "hosts = [\"a\"]", "path = \"/users/{1..9}\"\n").find("path pattern"),
            std::string::npos);
  EXPECT_NE(error_of("load = 1\n" + workload).find("field 'load': is a table"), std::string::npos);
}

// Every scenario the project ships parses, and names only known loaders and routes.
TEST(Scenario, EveryShippedScenarioParses) {
  const std::filesystem::path folder = std::filesystem::path(RINGSIDE_SOURCE_DIR) / "scenarios";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    Scenario scenario;
    ASSERT_NO_THROW(scenario = load_scenario(entry.path()));
    EXPECT_FALSE(scenario.workloads.empty());
  }
  EXPECT_GE(files, 4) << "default, seeds, loaders and hello";
}

}  // namespace
}  // namespace ringside::harness
