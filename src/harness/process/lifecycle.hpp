// One run of a contestant's server: a free port, a fresh work directory, the start argv and
// environment with placeholders expanded, readiness, and a stop that checks nothing is left.
// The validator uses it now; the benchmark run (issue 9) starts contestants the same way. An
// https start is handed the run's certificate and key ({tls_cert}, {tls_key}, {tls_ca}; empty
// on a plain start) and is asked for readiness over TLS.
//
//   RunningContestant server(contestant, {.threads = 2, .db_url = url, .cpus = {1}});  // throws
//   ReadyResult ready = server.wait_ready(30, &stop);   // ready.ok, else ready.reason
//   ... traffic to 127.0.0.1:server.port() ...
//   StopResult stopped = server.stop();                 // stop_signal, 5 s grace, SIGKILL, leftovers
//   server.last_output(5);                              // its stdout+stderr, kept after the stop
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "harness/config/contestant.hpp"
#include "harness/process/process.hpp"
#include "harness/process/tls_client.hpp"
#include "harness/process/tls_material.hpp"

namespace ringside::harness {

inline constexpr double kStopGraceS = 5;
inline constexpr const char* kOutputFile = "ringside-output.log";  // in {workdir}

struct StartOptions {
  int threads = 1;          // {threads}
  std::string db_url;       // {db_url}
  std::vector<int> cpus;    // pin the server here; empty: not pinned
  std::string host = "127.0.0.1";  // {host}: the address to listen on, and readiness asks there
  Protocol protocol = Protocol::kHttp;  // https: the two below are required
  TlsFiles tls_files;                   // {tls_cert}, {tls_key}, {tls_ca} of an https start
  std::shared_ptr<const TlsClientContext> tls_client;  // trusts tls_files.ca: readiness, checks
};

struct ReadyResult {
  bool ok = false;
  bool interrupted = false;
  // When not ok: "exited (exit 3) before it was ready", "not ready within 30 s: nothing accepted
  // a connection on 127.0.0.1 port 4242 (connect: Connection refused)". Without the server's
  // output: last_output() has it, for the caller to show once.
  std::string reason;
};

// A free TCP port on 127.0.0.1 (bound and released: another process could take it meanwhile, in
// which case the contestant fails to start and says so).
int pick_free_port();

class RunningContestant {
 public:
  // Throws std::runtime_error when it cannot start (the work directory, or exec failed).
  RunningContestant(const Contestant& contestant, const StartOptions& options);
  ~RunningContestant();  // stops it if nobody did
  RunningContestant(const RunningContestant&) = delete;
  RunningContestant& operator=(const RunningContestant&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] const std::string& workdir() const { return workdir_; }
  [[nodiscard]] Protocol protocol() const { return protocol_; }
  // The client context an https start is asked through; nullptr on a plain start.
  [[nodiscard]] const TlsClientContext* tls_client() const { return tls_client_.get(); }
  [[nodiscard]] ChildProcess& process() { return process_; }

  // GETs ready_path until it answers 200, for at most timeout_s; fails early when the server
  // exits (with its status and last output) or *stop turns true.
  ReadyResult wait_ready(double timeout_s, const std::atomic<bool>* stop = nullptr);
  // The stop signal of the manifest, grace_s, SIGKILL, reap, leftovers; then the work directory
  // is removed. Idempotent.
  StopResult stop(double grace_s = kStopGraceS);
  // The last `lines` lines it printed (read from {workdir} until the stop, kept after it).
  [[nodiscard]] std::string last_output(std::size_t lines) const;

 private:
  const Contestant& contestant_;
  int port_ = 0;
  std::string host_;
  Protocol protocol_ = Protocol::kHttp;
  std::shared_ptr<const TlsClientContext> tls_client_;
  std::string workdir_;
  std::string output_path_;
  std::string kept_output_;
  ChildProcess process_;
  bool stopped_ = false;
  StopResult stop_result_;
};

}  // namespace ringside::harness
