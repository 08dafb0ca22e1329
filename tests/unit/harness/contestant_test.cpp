#include "harness/config/contestant.hpp"
#include "harness/check/runtime_version.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

// A valid manifest, one field per line in this order, so a test can replace or drop one.
const std::vector<std::pair<std::string, std::string>> kFields = {
    {"name", R"(name = "express")"},
    {"description", R"~(description = "express 4 + pg (pool 10)")~"},
    {"language", R"(language = "JavaScript")"},
    {"runtime", R"(runtime = "node")"},
    {"available", R"(available = true)"},
    {"reason", R"(reason = "")"},
    {"requires", R"(requires = ["node"])"},
    {"install", R"(install = "scripts/setup")"},
    {"version", R"(version = ["node", "--version"])"},
    {"build", R"(build = ["npm", "ci", "--prefix", "{dir}"])"},
    {"build_inputs", R"(build_inputs = ["package.json", "package-lock.json"])"},
    {"start", R"(start = ["node", "server.js", "--port", "{port}", "--db", "{db_url}"])"},
    {"ready_path", R"(ready_path = "/")"},
    {"routes", R"(routes = ["/", "/json", "/users/:id"])"},
    {"threads", R"(threads = "param")"},
    {"db_pool", R"(db_pool = 10)"},
    {"stop_signal", R"(stop_signal = "SIGTERM")"},
    {"env", "[env]\nNODE_ENV = \"production\"\nWORK = \"{workdir}/x\""},
};

std::string manifest(const std::map<std::string, std::string>& replace = {}) {
  std::string text;
  for (const auto& [field, line] : kFields) {
    auto it = replace.find(field);
    const std::string& chosen = it != replace.end() ? it->second : line;
    if (!chosen.empty()) text += chosen + "\n";
  }
  return text;
}

std::string error_of(const std::string& text, std::string_view folder = "express") {
  try {
    parse_manifest(text, "contestants/express/contestant.toml", folder);
  } catch (const ManifestError& error) {
    return error.what();
  }
  return "";
}

TEST(ParseManifest, ReadsEveryField) {
  const Manifest m = parse_manifest(manifest(), "m.toml", "express");
  EXPECT_EQ(m.name, "express");
  EXPECT_EQ(m.description, "express 4 + pg (pool 10)");
  EXPECT_EQ(m.language, "JavaScript");
  EXPECT_EQ(m.runtime, "node");
  EXPECT_TRUE(m.available);
  EXPECT_EQ(m.required, std::vector<std::string>{"node"});
  EXPECT_EQ(m.install, "scripts/setup");
  EXPECT_EQ(m.version, (std::vector<std::string>{"node", "--version"}));
  EXPECT_EQ(m.build.size(), 4u);
  EXPECT_EQ(m.build_inputs, (std::vector<std::string>{"package.json", "package-lock.json"}));
  EXPECT_EQ(m.start.size(), 6u);
  EXPECT_EQ(m.start[3], "{port}");  // expanded only at start
  EXPECT_EQ(m.ready_path, "/");
  EXPECT_EQ(m.routes, (std::vector<Route>{Route::kHello, Route::kJson, Route::kUsers}));
  EXPECT_TRUE(m.threads_param);
  EXPECT_EQ(m.db_pool, 10);
  EXPECT_EQ(m.stop_signal, SIGTERM);
  ASSERT_EQ(m.env.size(), 2u);
  EXPECT_EQ(m.env[0], (std::pair<std::string, std::string>{"NODE_ENV", "production"}));
  EXPECT_EQ(m.env[1].second, "{workdir}/x");
}

// {host} in an argument or an [env] value; a manifest without it (a user's own contestant) listens
// on 127.0.0.1 only, and the reason it is skipped says what to add.
TEST(Contestant, TakesHostFromItsStartCommandOrEnv) {
  Contestant contestant;
  contestant.manifest = parse_manifest(manifest(), "m.toml", "express");
  EXPECT_FALSE(contestant.takes_host());
  contestant.manifest = parse_manifest(
      manifest({{"start", R"(start = ["srv", "--listen", "{host}:{port}"])"}}), "m.toml",
      "express");
  EXPECT_TRUE(contestant.takes_host());
  contestant.manifest = parse_manifest(
      manifest({{"env", "[env]\nHOST = \"{host}\"\nPORT = \"{port}\""}}), "m.toml", "express");
  EXPECT_TRUE(contestant.takes_host());
  EXPECT_EQ(no_host_reason("10.0.0.10"),
            "its start command has no {host}: it listens on 127.0.0.1 only, not on 10.0.0.10; add "
            "{host} to its start command or [env] (docs/contestants.md)");
}

TEST(ParseManifest, OptionalFieldsHaveDefaults) {
  const Manifest m = parse_manifest(
      "name = \"x\"\nruntime = \"r\"\nstart = [\"r\", \"{port}\"]\nready_path = \"/\"\nroutes = [\"/\"]\n"
      "threads = 2\n",
      "m.toml", "x");
  EXPECT_TRUE(m.available);
  EXPECT_TRUE(m.required.empty());
  EXPECT_TRUE(m.version.empty());
  EXPECT_TRUE(m.build.empty());
  EXPECT_FALSE(m.threads_param);
  EXPECT_EQ(m.fixed_threads, 2);
  EXPECT_EQ(m.db_pool, 0);
  EXPECT_EQ(m.stop_signal, SIGTERM);
  EXPECT_TRUE(m.env.empty());
  EXPECT_TRUE(m.pipelining);
  EXPECT_EQ(m.listen_backlog, 0u);
  EXPECT_EQ(m.protocols, std::vector<Protocol>{Protocol::kHttp});
}

// protocols = [...] says what it serves on {port}; https comes with the run's certificate and key,
// which it must take somewhere (empty on a plain start, so one start serves both).
TEST(ParseManifest, AServerThatServesHttpsTakesItsCertificateAndKey) {
  const std::string head =
      "name = \"x\"\nruntime = \"r\"\nready_path = \"/\"\nroutes = [\"/\"]\nthreads = 1\n";
  const Manifest both = parse_manifest(
      head + "start = [\"r\", \"{port}\"]\nprotocols = [\"http\", \"https\"]\n"
             "[env]\nTLS_CERT = \"{tls_cert}\"\nTLS_KEY = \"{tls_key}\"\nTLS_CA = \"{tls_ca}\"\n",
      "m.toml", "x");
  EXPECT_EQ(both.protocols, (std::vector<Protocol>{Protocol::kHttp, Protocol::kHttps}));
  Contestant contestant;
  contestant.manifest = both;
  EXPECT_TRUE(contestant.serves(Protocol::kHttps));
  EXPECT_EQ(unserved_protocol(contestant, Protocol::kHttps), "");
  contestant.manifest.protocols = {Protocol::kHttp};
  EXPECT_FALSE(contestant.serves(Protocol::kHttps));
  EXPECT_EQ(unserved_protocol(contestant, Protocol::kHttps),
            "does not serve https (its manifest's protocols: http)");
  // In start, as arguments of a script that renders a configuration (nginx, h2o).
  EXPECT_NO_THROW(parse_manifest(
      head + "start = [\"sh\", \"s.sh\", \"{port}\", \"{tls_cert}\", \"{tls_key}\"]\nprotocols = [\"https\"]\n",
      "m.toml", "x"));
  const auto error = [&](const std::string& text) {
    try {
      parse_manifest(head + text, "m.toml", "x");
    } catch (const ManifestError& failure) {
      return std::string(failure.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = [\"http\", \"https\"]\n"),
            "m.toml:7: field 'protocols': lists \"https\", but start and [env] pass no {tls_cert}: an "
            "https start is handed the run's certificate and key there (empty on a plain start); add "
            "TLS_CERT = \"{tls_cert}\" and TLS_KEY = \"{tls_key}\" to [env]");
  EXPECT_EQ(error("start = [\"r\", \"{port}\", \"{tls_cert}\"]\nprotocols = [\"https\"]\n").find(
                "pass no {tls_key}"),
            std::string("m.toml:7: field 'protocols': lists \"https\", but start and [env] ").size());
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = [\"http\", \"h3\"]\n"),
            "m.toml:7: field 'protocols': unknown protocol 'h3' (known: http, https, h2c, h2)");
  // HTTP/2 is served by the start of its transport: h2c with http, h2 with https.
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = [\"http\", \"h2\"]\n"),
            "m.toml:7: field 'protocols': 'h2' needs 'https' too: HTTP/2 is served by the same "
            "start, on the same port");
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = [\"h2c\"]\n"),
            "m.toml:7: field 'protocols': 'h2c' needs 'http' too: HTTP/2 is served by the same "
            "start, on the same port");
  const Manifest all =
      parse_manifest(head +
                         "start = [\"r\", \"{port}\", \"{tls_cert}\", \"{tls_key}\"]\n"
                         "protocols = [\"http\", \"https\", \"h2c\", \"h2\"]\n",
                     "m.toml", "x");
  EXPECT_EQ(all.protocols, (std::vector<Protocol>{Protocol::kHttp, Protocol::kHttps, Protocol::kH2c,
                                                  Protocol::kH2}));
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = [\"http\", \"http\"]\n"),
            "m.toml:7: field 'protocols': 'http' is listed twice");
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = []\n"),
            "m.toml:7: field 'protocols': must name at least one protocol: \"http\", \"https\", "
            "\"h2c\", \"h2\"");
  EXPECT_EQ(error("start = [\"r\", \"{port}\"]\nprotocols = \"https\"\n"),
            "m.toml:7: field 'protocols': must be an array of strings, not a string");
}

TEST(ParseManifest, AServerWhoseRuntimeFixesItsBacklogSaysSo) {
  const std::string head =
      "name = \"x\"\nruntime = \"r\"\nstart = [\"r\", \"{port}\"]\nready_path = \"/\"\nroutes = [\"/\"]\n"
      "threads = 1\n";
  EXPECT_EQ(parse_manifest(head + "listen_backlog = 512\n", "m.toml", "x").listen_backlog, 512u);
  EXPECT_THROW(parse_manifest(head + "listen_backlog = 0\n", "m.toml", "x"), ManifestError);
  EXPECT_THROW(parse_manifest(head + "listen_backlog = \"512\"\n", "m.toml", "x"), ManifestError);
}

TEST(ParseManifest, AServerThatCannotPipelineSaysSo) {
  const Manifest m = parse_manifest(
      "name = \"x\"\nruntime = \"r\"\nstart = [\"r\", \"{port}\"]\nready_path = \"/\"\nroutes = [\"/\"]\n"
      "threads = 1\npipelining = false\n",
      "m.toml", "x");
  EXPECT_FALSE(m.pipelining);
  EXPECT_THROW(parse_manifest("name = \"x\"\nruntime = \"r\"\nstart = [\"r\", \"{port}\"]\nready_path = \"/\"\n"
                              "routes = [\"/\"]\nthreads = 1\npipelining = \"no\"\n",
                              "m.toml", "x"),
               ManifestError);
}

TEST(ParseManifest, TakesOtherStopSignalsAndFixedThreads) {
  const Manifest m = parse_manifest(
      manifest({{"stop_signal", R"(stop_signal = "SIGQUIT")"}, {"threads", "threads = 8"}}),
      "m.toml", "express");
  EXPECT_EQ(m.stop_signal, SIGQUIT);
  EXPECT_EQ(m.stop_signal_name, "SIGQUIT");
  EXPECT_FALSE(m.threads_param);
  EXPECT_EQ(m.fixed_threads, 8);
}

// Every error names the file, the field, and (where the field is present) its line.
TEST(ParseManifest, EveryErrorIsOneLineNamingFileFieldAndLine) {
  struct Case {
    std::map<std::string, std::string> replace;
    std::string expected;  // a part of the message
  };
  const std::vector<Case> cases = {
      {{{"name", ""}}, "field 'name': missing"},
      {{{"name", R"(name = "koa")"}}, ":1: field 'name': 'koa' must equal the folder's name"},
      {{{"name", "name = 3"}}, ":1: field 'name': must be a string, not an integer"},
      {{{"description", "description = [1]"}}, ":2: field 'description': must be a string"},
      {{{"language", "language = true"}}, "field 'language': must be a string, not a boolean"},
      {{{"runtime", ""}}, "field 'runtime': missing"},
      {{{"available", R"(available = "yes")"}}, "field 'available': must be true or false"},
      {{{"available", "available = false"}}, "field 'reason': must say why"},
      {{{"requires", R"(requires = "node")"}}, "field 'requires': must be an array of strings, not a string"},
      {{{"requires", R"(requires = ["node", 1])"}}, "field 'requires': must be an array of strings; it holds an integer"},
      {{{"requires", R"(requires = ["/usr/bin/node"])"}}, "field 'requires': '/usr/bin/node' must be a program name or a path relative"},
      {{{"requires", R"(requires = ["{port}/x"])"}}, "field 'requires': placeholder {port} is not available here"},
      {{{"install", "install = 1.5"}}, "field 'install': must be a string, not a number"},
      {{{"version", R"(version = "node --version")"}}, "field 'version': must be an array of strings"},
      {{{"version", R"(version = ["node", "{port}"])"}}, "field 'version': placeholder {port} is not available here"},
      {{{"build", R"(build = ["make", "-j{threads}"])"}}, ":10: field 'build': placeholder {threads} is not available here"},
      {{{"build_inputs", R"(build_inputs = ["/etc/passwd"])"}}, "field 'build_inputs': '/etc/passwd' must be a path relative"},
      {{{"start", ""}}, "field 'start': missing"},
      {{{"start", "start = []"}}, "field 'start': must not be empty"},
      {{{"start", R"(start = ["node", "--port={prot}"])"}}, "field 'start': unknown placeholder {prot}"},
      {{{"ready_path", R"(ready_path = "health")"}}, "field 'ready_path': 'health' must be a path starting with /"},
      {{{"ready_path", ""}}, "field 'ready_path': missing"},
      {{{"routes", R"(routes = ["/", "/plaintext"])"}}, "field 'routes': unknown route '/plaintext'"},
      {{{"routes", R"(routes = ["/", "/"])"}}, "field 'routes': '/' is listed twice"},
      {{{"routes", "routes = []"}}, "field 'routes': must name at least one route"},
      {{{"routes", ""}}, "field 'routes': missing"},
      {{{"threads", R"(threads = "all")"}}, ":15: field 'threads': must be \"param\""},
      {{{"threads", "threads = 0"}}, "field 'threads': must be \"param\""},
      {{{"threads", ""}}, "field 'threads': missing"},
      {{{"db_pool", "db_pool = -1"}}, ":16: field 'db_pool': must be an integer in [0 - 10000]"},
      {{{"db_pool", R"(db_pool = "10")"}}, "field 'db_pool': must be an integer"},
      {{{"stop_signal", R"(stop_signal = "TERM")"}}, "field 'stop_signal': 'TERM' is not one of SIGTERM"},
      {{{"stop_signal", R"(stop_signal = "SIGKILL")"}}, "field 'stop_signal': 'SIGKILL' is not one of"},
      {{{"env", R"(env = "NODE_ENV=production")"}}, "field 'env': must be a table"},
      {{{"env", "[env]\nNODE_ENV = 1"}}, "field 'env.NODE_ENV': must be a string, not an integer"},
      {{{"env", "[env]\n\"BAD-NAME\" = \"x\""}}, "field 'env.BAD-NAME': not a valid environment variable name"},
      {{{"env", "[env]\nX = \"{nope}\""}}, "field 'env.X': unknown placeholder {nope}"},
      {{{"install", "install = \"x\"\nstartt = [\"node\"]"}}, "field 'startt': unknown field"},
      {{{"name", "name = \"express"}}, ":1: not valid TOML"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(manifest(c.replace));
    EXPECT_NE(error.find(c.expected), std::string::npos) << "got: " << error << "\nwanted: " << c.expected;
    EXPECT_EQ(error.rfind("contestants/express/contestant.toml", 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

// The port the harness picks reaches the server through start or [env], or nowhere: a manifest
// that passes it nowhere is refused when read, saying where to put it.
TEST(ParseManifest, AServerMustBeToldItsPort) {
  const std::string in_env = manifest(
      {{"start", R"(start = ["node", "server.js"])"}, {"env", "[env]\nPORT = \"{port}\""}});
  EXPECT_EQ(parse_manifest(in_env, "m.toml", "express").env[0].second, "{port}");
  const std::string error = error_of(manifest({{"start", R"(start = ["node", "server.js"])"}}));
  EXPECT_EQ(error,
            "contestants/express/contestant.toml:12: field 'start': passes no {port} to the "
            "server, so it cannot listen on the port the harness picks and waits on; add it to "
            "start (\"--port\", \"{port}\") or to [env] (PORT = \"{port}\")");
  // A script that renders a config template takes it as an argument (nginx, h2o).
  EXPECT_NO_THROW(parse_manifest(
      manifest({{"start", R"(start = ["sh", "start.sh", "{port}", "{workdir}"])"}}), "m.toml",
      "express"));
  // Listed only to say why it cannot run: nothing is started.
  EXPECT_NO_THROW(parse_manifest(manifest({{"available", "available = false"},
                                           {"reason", R"(reason = "not packaged")"},
                                           {"start", R"(start = [])"}}),
                                 "m.toml", "express"));
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = fs::temp_directory_path().string() + "/contestant-test-XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string minimal(std::string_view name, std::string_view extra = "") {
  return "name = \"" + std::string(name) +
         "\"\nruntime = \"sh\"\nstart = [\"sh\", \"{port}\"]\nready_path = \"/\"\nroutes = [\"/\"]\n"
         "threads = 1\n" + std::string(extra);
}

TEST(DiscoverContestants, FindsFoldersWithAManifestSortedByName) {
  TempDir root;
  write(root.path() / "zeta/contestant.toml", minimal("zeta"));
  write(root.path() / "alpha/contestant.toml", minimal("alpha"));
  write(root.path() / "notes/README", "no manifest here");
  write(root.path() / "loose.toml", "");
  const auto found = discover_contestants(root.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name(), "alpha");
  EXPECT_EQ(found[1].name(), "zeta");
  EXPECT_TRUE(found[0].dir.is_absolute());
  EXPECT_EQ(found[0].dir.filename(), "alpha");
}

TEST(DiscoverContestants, ABadManifestAnywhereIsAnError) {
  TempDir root;
  write(root.path() / "alpha/contestant.toml", minimal("alpha"));
  write(root.path() / "beta/contestant.toml", minimal("gamma"));
  try {
    discover_contestants(root.path());
    FAIL() << "no error";
  } catch (const ManifestError& error) {
    EXPECT_NE(std::string(error.what()).find("beta/contestant.toml:1: field 'name'"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(discover_contestants(root.path() / "missing"), std::runtime_error);
}

TEST(CheckRunnable, SaysWhyAndHowToInstall) {
  TempDir root;
  write(root.path() / "ok/contestant.toml", minimal("ok", "requires = [\"sh\"]\n"));
  write(root.path() / "off/contestant.toml",
        minimal("off", "available = false\nreason = \"not packaged\"\n"));
  write(root.path() / "lacks/contestant.toml",
        minimal("lacks", "requires = [\"sh\", \"no-such-program-xyz\", \"bin/tool\"]\n"
                         "install = \"npm ci\"\n"));
  write(root.path() / "local/contestant.toml",
        minimal("local", "requires = [\"bin/tool\", \"{dir}/bin/tool\"]\n"));
  write(root.path() / "local/bin/tool", "#!/bin/sh\n");
  fs::permissions(root.path() / "local/bin/tool", fs::perms::owner_all);
  const auto all = discover_contestants(root.path());  // lacks, local, off, ok

  const Runnability lacks = check_runnable(all[0]);
  EXPECT_FALSE(lacks.runnable);
  EXPECT_EQ(lacks.reason,
            "needs no-such-program-xyz (not on PATH), bin/tool (no such file, relative to the folder)");
  EXPECT_EQ(lacks.install, "npm ci");
  EXPECT_TRUE(check_runnable(all[1]).runnable);
  const Runnability off = check_runnable(all[2]);
  EXPECT_FALSE(off.runnable);
  EXPECT_EQ(off.reason, "not available: not packaged");
  EXPECT_EQ(off.install, "");
  EXPECT_TRUE(check_runnable(all[3]).runnable);
}

// {bundled} is the bundled contestants folder of the binary's source tree. A unit test's binary
// (build/FLAVOUR/tests/unit/) has none: what needs it says so rather than naming "/x".
TEST(CheckRunnable, RequiresFromTheBundledFolder) {
  TempDir root;
  write(root.path() / "copy/contestant.toml",
        minimal("copy", "requires = [\"{bundled}/node_modules/pg/package.json\"]\n"));
  const auto all = discover_contestants(root.path());
  ASSERT_EQ(fixed_placeholders(all[0]).dir, all[0].dir.string());
  ASSERT_EQ(fixed_placeholders(all[0]).bundled, default_contestants_dir().string());
  const Runnability copy = check_runnable(all[0]);
  EXPECT_FALSE(copy.runnable);
  if (default_contestants_dir().empty()) {
    EXPECT_NE(copy.reason.find("needs {bundled}/node_modules/pg/package.json (no bundled "
                               "contestants folder: "),
              std::string::npos)
        << copy.reason;
  } else {
    EXPECT_EQ(copy.reason, "needs " + default_contestants_dir().string() +
                               "/node_modules/pg/package.json (no such file)");
  }
}

TEST(RuntimeVersion, TakesTheFirstNonEmptyLineAndRunsInTheFolder) {
  TempDir root;
  write(root.path() / "v/contestant.toml",
        minimal("v", "version = [\"sh\", \"-c\", \"echo; echo v1.2.3 $(basename $PWD) >&2; echo more\"]\n"));
  write(root.path() / "bad/contestant.toml",
        minimal("bad", "version = [\"sh\", \"-c\", \"echo oops; exit 3\"]\n"));
  write(root.path() / "none/contestant.toml", minimal("none"));
  write(root.path() / "slow/contestant.toml", minimal("slow", "version = [\"sleep\", \"30\"]\n"));
  const auto all = discover_contestants(root.path());  // bad, none, slow, v
  EXPECT_EQ(runtime_version(all[3]), "v1.2.3 v");
  EXPECT_EQ(runtime_version(all[0]), "unknown (exit 3: oops)");
  EXPECT_EQ(runtime_version(all[1]), "unknown (no version command)");
  EXPECT_EQ(runtime_version(all[2], 0.2), "unknown (version command ran over 0.2 s)");
}

}  // namespace
}  // namespace ringside::harness
