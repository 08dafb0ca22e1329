// Load from other machines for `ringside compare` (a scenario's [load] engine = "ssh"): ringside
// copies itself to each load host with scp, checks that it runs there, measures each host's clock
// against its own, and for each point runs `ringside load --start-at T --tag HOST --json` on every
// host at once over ssh, each with its exact share of the point, and reads each host's JSON from
// ssh's output for load/merge.hpp to merge. Nothing of ringside's own coordinates: ssh starts the
// processes, the shared instant T lines them up (docs/distributed.md).
//
//   LoadHosts hosts(scenario.load, &stop);
//   std::string problem = hosts.prepare(say);         // "" or one line naming the host
//   RemotePoint point = {...};                        // what the point asks of all hosts together
//   RemoteOutcome out = hosts.run(point, tick);       // out.generators, or out.error
//
// A remote load ends with its ssh session: the command it runs watches its standard input, which
// the harness holds open, and sends the load SIGTERM (which prints what it measured and exits)
// when that closes, so a killed harness or a stopped run leaves nothing running on the hosts.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/results/results.hpp"
#include "harness/config/scenario.hpp"
#include "load/merge.hpp"

namespace ringside::harness {

// What one point asks of all the hosts together; each host gets its share.
struct RemotePoint {
  std::vector<std::string> urls;  // one URL (the remote engine takes no path pattern)
  std::string method = "GET";
  std::vector<std::string> headers;
  std::string body;
  unsigned connections = 1;
  unsigned threads = 1;           // per host
  unsigned pipeline = 1;
  bool keep_alive = true;
  bool http2 = false;     // --http2
  unsigned streams = 1;   // --streams
  double tls_resume = 0;  // --tls-resume (https)
  double rate = 0;                // 0: closed
  double duration_s = 0;          // 0 with requests
  std::uint64_t requests = 0;
  double warmup_s = 0;
  double timeout_s = 10;
};

// Host i's part of `total` over `hosts`: the quotient, one more for the first total % hosts.
std::uint64_t share_of(std::uint64_t total, std::size_t hosts, std::size_t i);

// "'it''s'" -> a word for a POSIX shell, single-quoted.
std::string shell_quote(const std::string& word);

struct RemoteOutcome {
  std::vector<load::GeneratorResult> generators;  // one per host that took part, in host order
  std::vector<std::string> hosts;                  // their names, likewise
  std::vector<std::string> logs;                   // each one's --hlog text (one interval a second)
  double start_epoch_s = 0;                        // T
  std::string error;                               // one line naming the host; generators empty
};

class LoadHosts {
 public:
  LoadHosts(const LoadSetup& setup, const std::atomic<bool>* stop);

  // Copies the running binary to every host (once), runs its --version there and measures the
  // clocks. "" when every host is ready; else one line naming the host and what to do.
  std::string prepare(const std::function<void(const std::string&)>& say);

  [[nodiscard]] const std::vector<LoadHostFacts>& facts() const { return facts_; }

  // Runs the point on every host (the first `connections` of them when there are fewer
  // connections than hosts), starting together at now + start_lead + warm-up. `tick` is called
  // every ~20 ms while they run with the wall-clock instant T; it returns false to stop them (the
  // server died). Bounded by T + the point's length + a margin.
  RemoteOutcome run(const RemotePoint& point, const std::function<bool(double)>& tick);

 private:
  std::vector<std::string> ssh_argv(const LoadHost& host) const;
  std::string command_for(const LoadHost& host, const RemotePoint& point, std::size_t index,
                          std::size_t hosts, double start_at) const;
  // prepare's steps for one host, each "" or one line naming the host and what to do.
  // Copies ringside there, checks it runs and measures the clock; adds the host to facts_.
  std::string prepare_host(const LoadHost& host, const std::string& self,
                           const std::function<void(const std::string&)>& say);
  // Copies `self` to `part` on the host with scp.
  std::string copy_binary(const LoadHost& host, const std::string& where, const std::string& self,
                          const std::string& part) const;
  // Moves `part` to binary_ there and runs its --version.
  std::string install_binary(const LoadHost& host, const std::string& where,
                             const std::string& part) const;

  const LoadSetup& setup_;
  const std::atomic<bool>* stop_;
  std::string binary_;  // on the hosts
  std::vector<LoadHostFacts> facts_;
};

}  // namespace ringside::harness
