// Judging a measured point, as pure functions over the results model: the flags that say a
// number is not the server's ("loader-bound", "listen-overflow", "syn-retransmits", "resets",
// "connections-missing") or that an open point's rate was more than the server could carry
// ("server-bound"), each with one sentence saying what happened, and the summary of a
// point over its rounds (the median of every figure, the min-max of requests/s, "noisy" when
// the rounds spread more than 5%). docs/compare.md states the rules.
//
//   judge_round(round, {.mode = "closed", .connections = 100, .pipeline = 1, .loader_cores = 1});
//   summarize_point(point);   // point.median, requests_per_s_min/max, noisy
#pragma once

#include <string>
#include <vector>

#include "harness/results.hpp"

namespace ringside::harness {

inline constexpr double kLoaderBusyShare = 0.9;     // loader CPU of its cores
inline constexpr double kLoaderWaitShare = 0.5;     // loader waiting for a CPU, of its cores' time
inline constexpr double kOpenShortfall = 0.05;      // an open point short of its rate by more
inline constexpr double kLittleTolerance = 0.25;    // in-flight vs throughput x mean latency
// Little's law is checked only when the mean latency is this small a part of the point: the
// requests still in flight when a point ends are in no mean, which biases a short point low.
inline constexpr double kLittleMaxLatencyShare = 0.02;
inline constexpr double kNoisySpread = 0.05;        // rounds around their median

struct PointContext {
  std::string mode = "closed";
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
};

// Adds the flags and notes this round earns (keeping any already there).
void judge_round(RoundFigures& round, const PointContext& context);

// An open point the contestant could not carry: its median short of the rate, with a round
// where the loader had every connection busy ("server-bound"). summarize_point sets it.
bool could_not_carry(const PointResult& point);

// The median of the finite values (NaN when there are none).
double median_of(std::vector<double> values);

// Fills point.median (each figure the median over rounds; statuses and errors per key; flags
// and notes the union), the min-max of requests/s and `noisy`.
void summarize_point(PointResult& point);

// "1,234" — thousands separated, for notes and tables.
std::string with_commas(std::uint64_t value);

}  // namespace ringside::harness
