// `ringside db temp` and `ringside db init`: flags and signals around db::TempCluster,
// db::init_schema (PostgreSQL) and db::init_sqlite.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "cli_support.hpp"
#include "commands.hpp"
#include "db/connection.hpp"
#include "db/database_url.hpp"
#include "db/schema.hpp"
#include "db/sqlite_database.hpp"
#include "db/temp_cluster.hpp"

namespace ringside::apps {
namespace {

constexpr const char* kDbUsage =
    "usage: ringside db <command> [options]\n"
    "\n"
    "commands:\n"
    "  temp      start a throwaway, seeded PostgreSQL; print its URL (ringside db temp --help)\n"
    "  init      create and seed the schema in a database, SQLite or PostgreSQL (ringside db init --help)\n";

// How often `db temp` looks whether the process that started it is still there.
constexpr timespec kParentCheck{0, 100'000'000};

enum class Stop { signal, parent_gone, cluster_gone };

// Waits for SIGINT, SIGTERM or SIGHUP, for our parent to die (we are reparented: getppid changes),
// or for the postmaster to exit on its own. SIGUSR1 kills PostgreSQL and SIGUSR2 starts it again,
// for outage tests; each is announced on stderr once done.
Stop wait_for_stop(const sigset_t& signals, pid_t parent, db::TempCluster& cluster, int& signal_number) {
  while (true) {
    signal_number = sigtimedwait(&signals, nullptr, &kParentCheck);
    if (signal_number == SIGUSR1 || signal_number == SIGUSR2) {
      try {
        if (signal_number == SIGUSR1) {
          cluster.kill_server();
          std::fprintf(stderr, "ringside db temp: PostgreSQL killed (SIGUSR1); SIGUSR2 restarts it\n");
        } else {
          cluster.restart_server();
          std::fprintf(stderr, "ringside db temp: PostgreSQL restarted on port %d\n", cluster.port());
        }
      } catch (const std::exception& error) {
        std::fprintf(stderr, "ringside db temp: %s\n", error.what());
      }
      continue;
    }
    if (signal_number > 0) return Stop::signal;
    if (getppid() != parent) return Stop::parent_gone;
    if (!cluster.killed_on_purpose() && !cluster.running()) return Stop::cluster_gone;
  }
}

int run_temp(int argc, char** argv) {
  db::TempClusterOptions options;
  CLI::App app("ringside db temp", "ringside db temp");
  app.description(
      "Start a throwaway PostgreSQL cluster (fsync off), seed database `ringside`, print its URL on\n"
      "stdout and run until SIGINT/SIGTERM/SIGHUP or until the parent process exits; then stop it\n"
      "and remove its directory. For outage tests, SIGUSR1 kills PostgreSQL (as a crash would) and\n"
      "SIGUSR2 starts it again on the same port.");
  app.add_flag("--keep", options.keep, "Leave the cluster's directory on disk when stopping");
  app.add_option("--start-timeout", options.start_timeout_s,
                 "Seconds (or 500ms, 1m, ...) for initdb, and again for the server to accept connections")
      ->capture_default_str()
      ->transform(duration_to_seconds(1, 600));
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;

  // Before anything starts: a signal during start-up waits, pending, until the URL is out.
  sigset_t signals = take_shutdown_signals();
  sigaddset(&signals, SIGUSR1);
  sigaddset(&signals, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const pid_t parent = getppid();

  db::TempCluster cluster(options);
  try {
    cluster.start();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ringside db temp: %s\n", error.what());
    return 1;
  }
  std::printf("%s\n", cluster.url().c_str());
  std::fflush(stdout);
  std::fprintf(stderr,
               "ringside db temp: PostgreSQL %s on 127.0.0.1:%d, socket and data in %s "
               "(fsync off: throwaway); Ctrl-C stops it and removes the directory%s\n",
               cluster.version().c_str(), cluster.port(), cluster.directory().c_str(),
               options.keep ? " (--keep: it stays)" : "");

  int signal_number = 0;
  const std::string directory = cluster.directory();
  switch (wait_for_stop(signals, parent, cluster, signal_number)) {
    case Stop::signal:
      std::fprintf(stderr, "ringside db temp: %s, stopping\n", strsignal(signal_number));
      break;
    case Stop::parent_gone:
      std::fprintf(stderr, "ringside db temp: parent process exited, stopping\n");
      break;
    case Stop::cluster_gone:
      cluster.stop();
      std::fprintf(stderr, "ringside db temp: PostgreSQL exited on its own; see %s/postgres.log\n",
                   directory.c_str());
      return 1;
  }
  cluster.stop();
  std::fprintf(stderr, options.keep ? "ringside db temp: stopped, kept %s\n"
                                    : "ringside db temp: stopped, removed %s\n",
               directory.c_str());
  return 0;
}

int init_sqlite_file(const std::string& path) {
  try {
    db::init_sqlite(path);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ringside db init: --db: %s\n", error.what());
    return 2;  // the file is the user's to fix, as for `ringside serve`
  }
  std::fprintf(stderr,
               "ringside db init: seeded users (%d rows), world (%d rows), fortune (%zu rows) in %s\n",
               db::kUserRows, db::kWorldRows, db::kFortunes.size(), path.c_str());
  return 0;
}

int run_init(int argc, char** argv) {
  std::string url;
  CLI::App app("ringside db init", "ringside db init");
  app.description("Create the users, world and fortune tables and seed them (idempotent).");
  app.add_option("--db", url,
                 "Database: sqlite:PATH (a file, created if missing) or postgres://USER@HOST:PORT/NAME "
                 "(any libpq URL)")
      ->required();
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;

  std::string url_error;
  const std::optional<db::DatabaseTarget> target = db::parse_database_url(url, url_error);
  if (!target || url.empty() || target->backend == db::Backend::kNone) {
    std::fprintf(stderr, "ringside db init: --db: %s\n",
                 target && !url.empty() ? "none names no database to seed"
                 : url.empty()          ? "needs sqlite:PATH or a postgres://... URL"
                                        : url_error.c_str());
    return 2;
  }
  if (target->backend == db::Backend::kSqlite) return init_sqlite_file(target->location);
  try {
    db::Connection connection = db::connect(url);
    db::InitResult result = db::init_schema(connection.get());
    std::fprintf(stderr,
                 "ringside db init: seeded users (%d rows), world (%d rows), fortune (%zu rows)%s\n",
                 db::kUserRows, db::kWorldRows, db::kFortunes.size(),
                 result.stat_statements ? "; pg_stat_statements enabled" : "");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ringside db init: %s\n", error.what());
    return 1;
  }
  return 0;
}

}  // namespace

int run_db(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kDbUsage, stderr);
    return 2;
  }
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kDbUsage, stdout);
    return 0;
  }
  if (command == "temp") return run_temp(argc - 1, argv + 1);
  if (command == "init") return run_init(argc - 1, argv + 1);
  std::fprintf(stderr, "ringside db: unknown command '%s' (use: temp, init)\n", argv[1]);
  return 2;
}

}  // namespace ringside::apps
