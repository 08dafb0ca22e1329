#include "db/temp_cluster.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "core/child_signals.hpp"
#include "core/socket.hpp"
#include "db/connection.hpp"
#include "db/schema.hpp"

namespace ringside::db {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kPostgresRoot = "/usr/lib/postgresql";
constexpr int kPortAttempts = 5;
constexpr auto kPollInterval = std::chrono::milliseconds(20);

struct Binaries {
  std::string bin_dir;
  std::string version;
};

// Debian installs each major version side by side; take the highest with a server in it.
Binaries find_binaries() {
  Binaries best;
  int best_major = -1;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(kPostgresRoot, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string bin = entry.path().string() + "/bin";
    if (access((bin + "/initdb").c_str(), X_OK) != 0 || access((bin + "/postgres").c_str(), X_OK) != 0)
      continue;
    if (int major = std::atoi(name.c_str()); major > best_major) {
      best_major = major;
      best = Binaries{bin, name};
    }
  }
  if (best_major < 0) {
    throw std::runtime_error(std::string("postgresql is not installed (no ") + kPostgresRoot +
                             "/*/bin/initdb): run scripts/setup");
  }
  return best;
}

bool wait_for_exit(pid_t pid, double timeout_s, int* status) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid || (done < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

struct SpawnSpec {
  std::vector<std::string> args;
  std::string log_path;
  uid_t uid;
  gid_t gid;
  bool own_session;  // and SIGINT to it when the starting thread dies
};

// fork + exec as the cluster's owner, stdout and stderr into the log. Only async-signal-safe calls
// between fork and exec: the caller may have threads.
pid_t spawn(const SpawnSpec& spec) {
  std::vector<char*> argv;
  for (const auto& arg : spec.args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const bool switch_user = geteuid() == 0 && spec.uid != 0;
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid > 0) return pid;

  // The child: our callers block the shutdown signals and ignore SIGPIPE; PostgreSQL expects
  // neither (a blocked SIGINT would make its fast shutdown wait forever).
  core::restore_default_signals();
  if (spec.own_session) setsid();
  if (switch_user && (setgroups(0, nullptr) != 0 || setgid(spec.gid) != 0 || setuid(spec.uid) != 0))
    _exit(126);
  // After setuid, which clears the death signal; a parent gone by now would never send it.
  if (spec.own_session && (prctl(PR_SET_PDEATHSIG, SIGINT) != 0 || getppid() != parent)) _exit(125);
  int log = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) _exit(124);
  // Nothing else of ours (a test's pipes, a harness's sockets) may outlive us in the cluster.
  syscall(SYS_close_range, 3u, ~0u, 0u);
  execv(argv[0], argv.data());
  _exit(127);
}

// The first directory from `path` up to / that `uid`:`gid` may not pass through (no search
// permission for it as owner, group or other), or "" when it can reach `path`.
std::string first_unreachable_ancestor(const std::string& path, uid_t uid, gid_t gid) {
  std::string at = path;
  while (!at.empty()) {
    struct stat st {};
    if (stat(at.c_str(), &st) != 0) return at;
    const mode_t needed = st.st_uid == uid ? S_IXUSR : st.st_gid == gid ? S_IXGRP : S_IXOTH;
    if ((st.st_mode & needed) == 0) return at;
    if (at == "/") break;
    const std::size_t slash = at.find_last_of('/');
    at = slash == 0 ? "/" : at.substr(0, slash);
  }
  return {};
}

}  // namespace

TempCluster::TempCluster(TempClusterOptions options) : options_(options) {}

TempCluster::~TempCluster() {
  try {
    stop();
  } catch (...) {  // a destructor cannot report; stop() only throws on allocation failure
  }
}

void TempCluster::start() {
  if (postmaster_ > 0) return;
  try {
    Binaries binaries = find_binaries();
    bin_dir_ = binaries.bin_dir;
    version_ = binaries.version;
    stat_statements_preload_ =
        access((bin_dir_ + "/../lib/pg_stat_statements.so").c_str(), R_OK) == 0;
    make_directory();
    run_initdb();
    bool started = false;
    for (int attempt = 0; attempt < kPortAttempts && !started; ++attempt) started = start_postmaster();
    if (!started) {
      throw std::runtime_error("PostgreSQL found no free port in " + std::to_string(kPortAttempts) +
                               " tries: " + last_log_line("postgres.log"));
    }
    url_ = "postgres://postgres@127.0.0.1:" + std::to_string(port_) + "/ringside";
    create_database();
  } catch (...) {
    stop();
    throw;
  }
}

void TempCluster::make_directory() {
  if (geteuid() == 0) {
    // initdb and postgres refuse to run as root.
    const passwd* user = getpwnam("postgres");
    if (user == nullptr) {
      throw std::runtime_error(
          "running as root needs the `postgres` OS user to own the cluster: run scripts/setup");
    }
    uid_ = user->pw_uid;
    gid_ = user->pw_gid;
  } else {
    uid_ = getuid();
    gid_ = getgid();
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringside-pg-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "creating a directory like " + pattern);
  }
  directory_ = pattern;
  if (chown(directory_.c_str(), uid_, gid_) != 0) {
    throw std::system_error(errno, std::generic_category(), "giving " + directory_ + " to postgres");
  }
  // Running as root, the cluster belongs to `postgres`, which must be able to walk down to it;
  // a private TMPDIR (mode 0700, as mkdtemp makes them) would fail initdb with no message.
  if (uid_ != geteuid()) {
    const std::string blocked = first_unreachable_ancestor(directory_, uid_, gid_);
    if (!blocked.empty()) {
      rmdir(directory_.c_str());
      directory_.clear();
      throw std::runtime_error("the postgres OS user cannot enter " + blocked +
                               " (on the way to TMPDIR): set TMPDIR to a directory it can reach, "
                               "such as /tmp, or chmod o+x " + blocked);
    }
  }
}

void TempCluster::run_initdb() {
  SpawnSpec spec{{bin_dir_ + "/initdb", "--pgdata=" + directory_ + "/data", "--username=postgres",
                  "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"},
                 directory_ + "/initdb.log", uid_, gid_, false};
  pid_t pid = spawn(spec);
  int status = 0;
  if (!wait_for_exit(pid, options_.start_timeout_s, &status)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    throw std::runtime_error("initdb did not finish within " +
                             std::to_string(static_cast<int>(options_.start_timeout_s)) + "s");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("initdb failed (" + describe_exit(status) +
                             "): " + last_log_line("initdb.log"));
  }
}

bool TempCluster::start_postmaster(int port) {
  port_ = port != 0 ? port : core::free_loopback_port();
  std::vector<std::string> args = {
      bin_dir_ + "/postgres", "-D", directory_ + "/data",
      "-c", "listen_addresses=127.0.0.1",
      "-c", "port=" + std::to_string(port_),
      "-c", "unix_socket_directories=" + directory_,
      // Throwaway data: durability off, so benchmarks measure queries rather than the disk.
      "-c", "fsync=off",
      "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off",
      "-c", "max_wal_size=2GB",
      "-c", "checkpoint_timeout=30min",
      "-c", "max_connections=200",
  };
  if (stat_statements_preload_) {
    args.insert(args.end(), {"-c", "shared_preload_libraries=pg_stat_statements"});
  }
  postmaster_ = spawn(SpawnSpec{std::move(args), directory_ + "/postgres.log", uid_, gid_, true});
  group_ = postmaster_;
  wait_until_ready();
  if (postmaster_ > 0) return true;
  const std::string reason = last_log_line("postgres.log");
  if (reason.find("could not bind") != std::string::npos ||
      reason.find("could not create any TCP/IP sockets") != std::string::npos ||
      reason.find("already in use") != std::string::npos) {
    return false;  // someone took the port between our probe and the postmaster's bind
  }
  throw std::runtime_error("PostgreSQL did not start: " + reason + " (" + directory_ + "/postgres.log)");
}

void TempCluster::wait_until_ready() {
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port_) +
                               " user=postgres dbname=postgres connect_timeout=5";
  const auto deadline = Clock::now() + std::chrono::duration<double>(options_.start_timeout_s);
  while (true) {
    int status = 0;
    if (waitpid(postmaster_, &status, WNOHANG) == postmaster_) {
      postmaster_ = -1;
      return;
    }
    if (PQping(conninfo.c_str()) == PQPING_OK) return;
    if (Clock::now() >= deadline) {
      throw std::runtime_error("PostgreSQL did not accept connections within " +
                               std::to_string(static_cast<int>(options_.start_timeout_s)) +
                               "s: " + last_log_line("postgres.log"));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

void TempCluster::create_database() {
  {
    Connection admin = connect(socket_url_for("postgres"));
    execute(admin.get(), "CREATE DATABASE ringside");
  }
  Connection connection = connect(socket_url());
  init_schema(connection.get());
}

std::string TempCluster::socket_url() const { return socket_url_for("ringside"); }

std::string TempCluster::socket_url_for(const std::string& database) const {
  return "postgresql:///" + database + "?host=" + directory_ + "&port=" + std::to_string(port_) +
         "&user=postgres";
}

bool TempCluster::running() {
  if (postmaster_ <= 0) return false;
  int status = 0;
  if (waitpid(postmaster_, &status, WNOHANG) == postmaster_) {
    postmaster_ = -1;
    return false;
  }
  return true;
}

void TempCluster::kill_server() {
  if (postmaster_ <= 0) throw std::runtime_error("PostgreSQL is not running");
  kill(-group_, SIGKILL);  // the postmaster's process group: every backend with it
  int status = 0;
  waitpid(postmaster_, &status, 0);
  postmaster_ = -1;
  killed_on_purpose_ = true;
}

void TempCluster::restart_server() {
  if (postmaster_ > 0) return;
  if (group_ > 0) kill(-group_, SIGKILL);  // a backend that outlived its postmaster
  if (!start_postmaster(port_)) {
    throw std::runtime_error("PostgreSQL could not take its port " + std::to_string(port_) +
                             " again: " + last_log_line("postgres.log"));
  }
  if (postmaster_ <= 0) {
    throw std::runtime_error("PostgreSQL did not restart: " + last_log_line("postgres.log"));
  }
  killed_on_purpose_ = false;
}

void TempCluster::stop() {
  if (postmaster_ > 0) {
    kill(postmaster_, SIGINT);  // fast shutdown: roll back, disconnect clients, checkpoint, exit
    int status = 0;
    if (!wait_for_exit(postmaster_, options_.stop_timeout_s, &status)) {
      kill(-postmaster_, SIGKILL);  // its own session and process group: backends go too
      waitpid(postmaster_, &status, 0);
    }
    postmaster_ = -1;
  }
  if (group_ > 0) {
    kill(-group_, SIGKILL);  // backends of a postmaster that crashed; nothing after a clean stop
    group_ = -1;
  }
  if (!directory_.empty() && !options_.keep) {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
    directory_.clear();
  }
}

std::string TempCluster::last_log_line(const std::string& file) const {
  std::ifstream log(directory_ + "/" + file);
  std::string line, last;
  while (std::getline(log, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no message in " + file : last;
}

}  // namespace ringside::db
