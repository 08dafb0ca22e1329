// Judging a measured point, as pure functions over the results model: the flags that say a
// number is not the server's ("loader-bound", "listen-overflow", "syn-retransmits", "resets",
// "connections-missing", "server-starved") or that an open point's rate was more than the
// server could carry ("server-bound"), each with one sentence saying what happened, and the
// summary of a point over its rounds (the median of every figure, the min-max of requests/s, the
// medians' intervals, "noisy" when the median requests/s is not known to within the stopping
// rule's target: median_interval.hpp). docs/compare.md states the rules.
//
//   judge_round(round, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 1});
//   summarize_point(point);   // point.median, requests_per_s_min/max, noisy
#pragma once

#include <string>
#include <vector>

#include "harness/measure/median_interval.hpp"
#include "harness/results/results.hpp"

namespace ringside::harness {

inline constexpr double kLoaderBusyShare = 0.9;     // loader CPU of its cores
inline constexpr double kLoaderWaitShare = 0.5;     // loader waiting for a CPU, of its cores' time
inline constexpr double kOpenShortfall = 0.05;      // an open point short of its rate by more
inline constexpr double kLittleTolerance = 0.25;    // in-flight vs throughput x mean latency
// Little's law is checked only when the mean latency is this small a part of the point: the
// requests still in flight when a point ends are in no mean, which biases a short point low.
inline constexpr double kLittleMaxLatencyShare = 0.02;
// Other tasks' CPU time on the server CPUs, of those CPUs' time, from which a round is
// `server-starved`: the server lost that much of its CPUs to something else.
inline constexpr double kStarvedShare = 0.05;

struct PointContext {
  LoadMode mode = LoadMode::kClosed;
  unsigned connections = 0;
  unsigned pipeline = 1;
  double loader_cores = 1;      // cores the loader's threads could use: min(threads, load CPUs)
  bool connections_counted = true;  // established_peak was measured
  // kernel.listen_drops is the server's own listening sockets' (sock_diag), not machine-wide.
  bool listen_drops_per_port = false;
  // Requests the loader had outstanding when the point ended (in-process loader), or -1.
  long long in_flight_at_end = -1;
  // What the in-process loader saw of its own connections, or -1 (an external loader): those
  // that took 0.9 s or more to open (a first SYN lost: TCP retries after 1 s), and requests lost
  // to resets. With them the flags speak of this point alone, not of the machine's counters,
  // which count every program's connections.
  long long slow_connects = -1;
  long long loader_resets = -1;
  // The in-process loader's requests in flight, averaged over the measured phase, or -1.
  double mean_outstanding = -1;
  // The loader's latency resolution (ab reports whole milliseconds, 0 for under one), so that
  // requests/s x mean latency is not read as an idle loader when the mean was rounded down.
  double latency_resolution_s = 0;
  // The CPUs the server was pinned to, for the server-starved note ("CPU 0").
  std::vector<int> server_cpus;
};

// Adds the flags and notes this round earns (keeping any already there).
void judge_round(RoundFigures& round, const PointContext& context);

// An open point the contestant could not carry: its median short of the rate, with a round
// where the loader had every connection busy ("server-bound"). summarize_point sets it.
bool could_not_carry(const PointResult& point);

// The median of the finite values (NaN when there are none).
double median_of(std::vector<double> values);

// The rounds a point's medians are taken over: those not flagged server-starved, while they are
// at least half of its rounds; else every round (a machine busy throughout: the flag says so).
// A starved round measured the neighbour as much as the server; with auto rounds, leaving it out
// leaves the point unsettled, so another round replaces it.
std::vector<RoundFigures> rounds_for_medians(const std::vector<RoundFigures>& rounds);

// Fills point.median (each figure the median over rounds_for_medians; statuses and errors per
// key; flags and notes the union over every round), `left_out`, the min-max of requests/s, the
// intervals of the median requests/s and CPU per request, and `noisy` (two rounds or more, and
// the requests/s not converged by `rule`).
void summarize_point(PointResult& point, const StoppingRule& rule = {});

// Whether a point's rounds so far pin its median requests/s down (the auto rounds' test).
bool point_converged(const PointResult& point, const StoppingRule& rule);

// "1,234" — thousands separated, for notes and tables.
std::string with_commas(std::uint64_t value);

}  // namespace ringside::harness
