// A throwaway PostgreSQL cluster for tests, benchmarks and `ringside db temp`: initdb into a fresh
// directory under $TMPDIR (as the `postgres` OS user when running as root, since initdb and the
// server refuse root), a postmaster on a free 127.0.0.1 port with its Unix socket in that
// directory, a database `ringside` seeded by init_schema, and everything stopped and removed
// again by stop() or the destructor.
//
// The cluster is tuned for benchmarks, not for keeping data: fsync, synchronous_commit and
// full_page_writes are off (a crash may lose or corrupt it, which is fine for data we throw
// away). pg_stat_statements is preloaded when installed, so tests can count queries.
//
//   db::TempCluster cluster;
//   cluster.start();                 // throws std::runtime_error with one line on failure
//   connect_somewhere(cluster.url());
//   // ~TempCluster: fast shutdown, bounded wait, directory removed
//
// The postmaster runs in its own session (a Ctrl-C in the terminal reaches only us, and we stop
// it in order) and gets SIGINT, a fast shutdown, should the thread that started it die without
// stopping it; the directory then stays behind.
#pragma once

#include <sys/types.h>

#include <string>

namespace ringside::db {

struct TempClusterOptions {
  bool keep = false;             // leave the stopped cluster's directory on disk
  double start_timeout_s = 60;   // for initdb, then again for start-up, on a loaded machine
  double stop_timeout_s = 15;    // for the fast shutdown before the postmaster is killed
};

class TempCluster {
 public:
  explicit TempCluster(TempClusterOptions options = {});
  ~TempCluster();
  TempCluster(const TempCluster&) = delete;
  TempCluster& operator=(const TempCluster&) = delete;

  void start();
  // Idempotent. Fast shutdown (SIGINT), waits up to stop_timeout_s, then SIGKILLs what is left of
  // the cluster's process group; removes the directory unless `keep`.
  void stop();
  // True while the postmaster has not exited (reaps it if it has).
  bool running();
  // For outage tests: kill the postmaster and its backends at once, as a crash would; then start
  // it again on the same port with the same data (it recovers as after a crash). restart_server()
  // returns once it accepts connections; both throw std::runtime_error with one line.
  void kill_server();
  void restart_server();
  [[nodiscard]] bool killed_on_purpose() const { return killed_on_purpose_; }

  // postgres://postgres@127.0.0.1:PORT/ringside: over TCP, as the routes under test and their
  // peers in the benchmarks connect.
  const std::string& url() const { return url_; }
  // The same database over the Unix socket in directory().
  std::string socket_url() const;
  const std::string& directory() const { return directory_; }
  const std::string& version() const { return version_; }  // major version, "15"
  int port() const { return port_; }
  pid_t postmaster_pid() const { return postmaster_; }

 private:
  void make_directory();
  void run_initdb();
  // On `port`, or a free one when 0. False when the port was taken meanwhile: pick another.
  bool start_postmaster(int port = 0);
  void wait_until_ready();
  void create_database();
  std::string socket_url_for(const std::string& database) const;
  std::string last_log_line(const std::string& file) const;

  TempClusterOptions options_;
  std::string bin_dir_;
  std::string version_;
  std::string directory_;
  std::string url_;
  int port_ = 0;
  pid_t postmaster_ = -1;
  pid_t group_ = -1;  // the postmaster's session and process group, left to clean after it exits
  uid_t uid_ = 0;  // the cluster's owner: `postgres` when we are root, else ourselves
  gid_t gid_ = 0;
  bool stat_statements_preload_ = false;
  bool killed_on_purpose_ = false;
};

}  // namespace ringside::db
