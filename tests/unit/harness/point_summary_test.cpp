#include "harness/measure/point_summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ringside::harness {
namespace {

bool has(const RoundFigures& round, const std::string& flag) {
  return std::find(round.flags.begin(), round.flags.end(), flag) != round.flags.end();
}

// A healthy closed point at 100 connections: 10,000 req/s at a mean of 10 ms (Little: 100 in
// flight), every connection established, the loader at 40% of its core, the kernel quiet.
RoundFigures healthy() {
  RoundFigures r;
  r.duration_s = 1;
  r.completed = 10000;
  r.requests_per_s = 10000;
  r.latency.mean = 10000;
  r.loader_cpu_s = 0.4;
  r.loader_wait_s = 0.01;
  r.kernel.established_peak = 100;
  return r;
}

const PointContext kClosed100{.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 1};

TEST(Flags, AHealthyPointHasNone) {
  RoundFigures r = healthy();
  judge_round(r, kClosed100);
  EXPECT_TRUE(r.flags.empty()) << r.notes.front();
  EXPECT_TRUE(r.notes.empty());
}

TEST(Flags, LoaderCpuSaturated) {
  RoundFigures r = healthy();
  r.loader_cpu_s = 1.8;
  judge_round(r, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 2});
  ASSERT_TRUE(has(r, "loader-bound"));
  EXPECT_EQ(r.notes.at(0), "the loader used 90% of its 2 core(s): it, not the server, set the pace; "
                           "give it more load_cpus or loader_threads");
  RoundFigures below = healthy();
  below.loader_cpu_s = 1.7;
  judge_round(below, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 2});
  EXPECT_FALSE(has(below, "loader-bound"));
}

TEST(Flags, EachLoadHostJudgedOnItsOwnCpu) {
  RoundFigures r = healthy();
  r.loader_cpu_s = 5;  // the hosts' sum: not the harness's cores
  r.generators = {{.name = "gen1", .cpu_s = 0.95, .threads = 1, .cpu_share = 0.95},
                  {.name = "gen2", .cpu_s = 0.3, .threads = 1, .cpu_share = 0.3}};
  judge_round(r, kClosed100);
  ASSERT_TRUE(has(r, "loader-bound"));
  EXPECT_EQ(r.notes.at(0), "load host(s) used gen1 95% of its 1 core(s): the loader, not the server, "
                           "set the pace; add load hosts or give the workload more loader_threads");
  RoundFigures calm = healthy();
  calm.loader_cpu_s = 5;
  calm.generators = {{.name = "gen1", .cpu_s = 0.5, .threads = 1, .cpu_share = 0.5}};
  judge_round(calm, kClosed100);
  EXPECT_FALSE(has(calm, "loader-bound"));
}

TEST(Flags, LoaderStarvedOfItsCore) {
  RoundFigures r = healthy();
  r.loader_cpu_s = 0.05;
  r.loader_wait_s = 0.9;
  judge_round(r, kClosed100);
  ASSERT_TRUE(has(r, "loader-bound"));
  EXPECT_NE(r.notes.at(0).find("the loader waited for a CPU 90% of the time (it ran 5%): another"),
            std::string::npos) << r.notes.at(0);
  RoundFigures shared = healthy();
  shared.loader_wait_s = 0.45;  // a core shared with something else: slowed, not starved
  judge_round(shared, kClosed100);
  EXPECT_FALSE(has(shared, "loader-bound"));
  RoundFigures two = healthy();
  two.loader_wait_s = 1.1;  // of two cores for 1 s
  judge_round(two, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 2});
  EXPECT_TRUE(has(two, "loader-bound"));
}

TEST(Flags, OpenPointShortOfItsRate) {
  RoundFigures r = healthy();
  r.target_rate = 10000;
  r.requests_per_s = 9400;
  r.latency.mean = 1000;
  judge_round(r, {.mode = LoadMode::kOpen, .connections = 100, .pipeline = 1, .loader_cores = 1});
  ASSERT_TRUE(has(r, "loader-bound"));
  EXPECT_EQ(r.notes.at(0), "asked for 10,000 requests/s, got 9,400: the offered load was not "
                           "delivered, so latency here is not at that rate");
  RoundFigures close = healthy();
  close.target_rate = 10000;
  close.requests_per_s = 9600;
  judge_round(close, {.mode = LoadMode::kOpen, .connections = 100, .pipeline = 1, .loader_cores = 1});
  EXPECT_FALSE(has(close, "loader-bound"));  // open points are not held to Little's law
}

TEST(Flags, AnOpenPointShortWithEveryConnectionBusyIsTheServers) {
  // ringside load measured its 100 connections all outstanding: the server was the limit.
  RoundFigures r = healthy();
  r.target_rate = 448;
  r.requests_per_s = 187;
  r.latency.mean = 500000;
  PointContext open{.mode = LoadMode::kOpen, .connections = 100, .pipeline = 1, .loader_cores = 1,
                    .in_flight_at_end = 100, .mean_outstanding = 93.1};
  judge_round(r, open);
  EXPECT_EQ(r.flags, std::vector<std::string>{"server-bound"});
  EXPECT_EQ(r.notes.at(0), "asked for 448 requests/s, got 187 with all 100 connections busy: the "
                           "server could not carry this rate");
  // Requests still all outstanding at the end is enough, whatever the mean said before.
  RoundFigures late = healthy();
  late.target_rate = 448;
  late.requests_per_s = 187;
  open.mean_outstanding = 40;
  judge_round(late, open);
  EXPECT_TRUE(has(late, "server-bound"));
  // Connections mostly idle: the loader did not send what it was asked to.
  RoundFigures idle = healthy();
  idle.target_rate = 448;
  idle.requests_per_s = 187;
  open.mean_outstanding = 12;
  open.in_flight_at_end = 3;
  judge_round(idle, open);
  EXPECT_EQ(idle.flags, std::vector<std::string>{"loader-bound"});
  // An external loader (h2load --rps): Little's law says it, 187/s x 0.5 s = 93.5 in flight.
  RoundFigures external = healthy();
  external.target_rate = 448;
  external.requests_per_s = 187;
  external.latency.mean = 500000;
  judge_round(external, {.mode = LoadMode::kOpen, .connections = 100, .pipeline = 1, .loader_cores = 1});
  EXPECT_EQ(external.flags, std::vector<std::string>{"server-bound"});
}


TEST(Flags, LittlesLawOffInAClosedPoint) {
  RoundFigures r = healthy();
  r.latency.mean = 7000;  // 10,000/s x 7 ms = 70 in flight of 100: 30% off
  judge_round(r, kClosed100);
  ASSERT_TRUE(has(r, "loader-bound"));
  EXPECT_EQ(r.notes.at(0), "Little's law does not hold: 100 requests were meant to be in flight, "
                           "but requests/s x mean latency gives 70.0: the loader did not keep its "
                           "connections busy");
  RoundFigures within = healthy();
  within.latency.mean = 8000;  // 80: 20% off, within the 25%
  judge_round(within, kClosed100);
  EXPECT_FALSE(has(within, "loader-bound"));
  RoundFigures pipelined = healthy();
  pipelined.latency.mean = 40000;  // 400 in flight = 100 connections x 4 pipelined
  judge_round(pipelined, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 4, .loader_cores = 1});
  EXPECT_FALSE(has(pipelined, "loader-bound"));
  // A latency long against the point: the requests in flight at its end bias the mean.
  RoundFigures censored = healthy();
  censored.requests_per_s = 2000;
  censored.latency.mean = 25000;  // 2.5% of the 1 s point; 50 in flight of 100
  judge_round(censored, kClosed100);
  EXPECT_FALSE(has(censored, "loader-bound"));
  // The loader ended with all 100 outstanding: the server held requests past the end.
  RoundFigures held = healthy();
  held.latency.mean = 3000;  // 30 in flight by the completed ones
  PointContext full = kClosed100;
  full.in_flight_at_end = 100;
  judge_round(held, full);
  EXPECT_FALSE(has(held, "loader-bound"));
  // More in flight than connections is no idle loader: wrk's mean latency includes the time an
  // answer waited for its busy thread (10 connections, 52,617/s x 1.24 ms = 65).
  RoundFigures above = healthy();
  above.latency.mean = 30000;  // 300 in flight of 100
  judge_round(above, kClosed100);
  EXPECT_FALSE(has(above, "loader-bound"));
  // ab's whole milliseconds: a mean of 0 ms at 30,000/s is under 30 in flight, not 0.
  RoundFigures rounded = healthy();
  rounded.requests_per_s = 30000;
  rounded.latency.mean = 0;
  PointContext ab{.mode = LoadMode::kClosed, .connections = 10, .pipeline = 1, .loader_cores = 1,
                  .latency_resolution_s = 1e-3};
  rounded.kernel.established_peak = 10;
  judge_round(rounded, ab);
  EXPECT_FALSE(has(rounded, "loader-bound"));
  RoundFigures slow = healthy();  // 2,000/s x (0 + 1) ms = 2 of 10 at most: idle
  slow.requests_per_s = 2000;
  slow.latency.mean = 0;
  slow.kernel.established_peak = 10;
  judge_round(slow, ab);
  EXPECT_TRUE(has(slow, "loader-bound"));
  RoundFigures idle = healthy();
  idle.latency.mean = 3000;
  PointContext short_of_requests = kClosed100;
  short_of_requests.in_flight_at_end = 40;
  judge_round(idle, short_of_requests);
  EXPECT_TRUE(has(idle, "loader-bound"));
  // Connections the server never had are the kernel's story, not the loader's.
  RoundFigures missing = healthy();
  missing.latency.mean = 5000;
  missing.kernel.established_peak = 50;
  judge_round(missing, kClosed100);
  EXPECT_FALSE(has(missing, "loader-bound"));
  EXPECT_TRUE(has(missing, "connections-missing"));
}

TEST(Flags, TheLoadersMeasuredInFlightDecidesOverLatency) {
  // Node at 1,000 connections in a short point: answered requests' mean latency says 770 in
  // flight, but the loader measured all 1,000 outstanding the whole time (the rest were the
  // slow tail, still waiting at the end): not loader-bound.
  RoundFigures tail = healthy();
  tail.latency.mean = 7700;
  PointContext measured = kClosed100;
  measured.mean_outstanding = 99.2;
  judge_round(tail, measured);
  EXPECT_FALSE(has(tail, "loader-bound"));
  // A loader that left its connections idle a third of the time, whatever the latency says.
  RoundFigures idle = healthy();
  measured.mean_outstanding = 66.5;
  judge_round(idle, measured);
  ASSERT_TRUE(has(idle, "loader-bound"));
  EXPECT_EQ(idle.notes.at(0), "the loader had 66.5 of its 100 requests in flight on average: it "
                              "left connections idle between an answer and the next request, so "
                              "it, not the server, set the pace");
  // Pipelined: 100 connections x 4.
  RoundFigures pipelined = healthy();
  judge_round(pipelined, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 4, .loader_cores = 1,
                          .mean_outstanding = 395});
  EXPECT_FALSE(has(pipelined, "loader-bound"));
}

TEST(Flags, KernelCounters) {
  RoundFigures r = healthy();
  r.kernel.listen_overflows = 1234;
  r.kernel.listen_drops = 1300;
  r.kernel.syn_retransmits = 56;
  r.kernel.resets_sent = 7;
  r.kernel.established_peak = 40;
  r.latency.mean = 4000;  // 40 in flight, as established
  r.errors = {{"read", 3}};
  judge_round(r, kClosed100);
  EXPECT_EQ(r.flags, (std::vector<std::string>{"listen-overflow", "syn-retransmits", "resets",
                                               "connections-missing"}));
  EXPECT_EQ(r.notes.at(0), "the kernel's listen queue overflowed 1,234 times (1,300 SYNs dropped): "
                           "clients waited for SYN retransmits; latency here is the kernel's, not "
                           "the server's");
  EXPECT_EQ(r.notes.at(3), "the server had at most 40 of 100 connections established: the rest "
                           "waited in its listen queue or were refused, so this is not a "
                           "100-connection point");
  RoundFigures drops_only = healthy();
  drops_only.kernel.listen_drops = 1;
  judge_round(drops_only, kClosed100);
  EXPECT_TRUE(has(drops_only, "listen-overflow"));
}

TEST(Flags, ListenDropsOfTheServersOwnSocketsDecide) {
  RoundFigures elsewhere = healthy();
  elsewhere.kernel.listen_overflows = 50;  // machine-wide: someone else's
  elsewhere.kernel.listen_drops = 0;       // the server's own listeners dropped nothing
  PointContext per_port = kClosed100;
  per_port.listen_drops_per_port = true;
  judge_round(elsewhere, per_port);
  EXPECT_FALSE(has(elsewhere, "listen-overflow"));
  RoundFigures here = healthy();
  here.kernel.listen_drops = 1234;
  here.kernel.listen_overflows = 1234;  // an external loader: the machine's count confirms it
  judge_round(here, per_port);
  ASSERT_TRUE(has(here, "listen-overflow"));
  EXPECT_EQ(here.notes.at(0), "the kernel dropped 1,234 connections at this server's full listen "
                              "queue: clients waited for SYN retransmits; latency here is the "
                              "kernel's, not the server's");
  // With ringside load's evidence: drops that delayed none of its connects, and no overflow
  // anywhere, were stray segments the listener discarded.
  PointContext evidence = per_port;
  evidence.slow_connects = 0;
  RoundFigures stray = healthy();
  stray.kernel.listen_drops = 8;
  judge_round(stray, evidence);
  EXPECT_FALSE(has(stray, "listen-overflow"));
  RoundFigures retried = healthy();
  retried.kernel.listen_drops = 8;
  evidence.slow_connects = 5;
  judge_round(retried, evidence);
  EXPECT_TRUE(has(retried, "listen-overflow"));
  RoundFigures acks_dropped = healthy();  // the final ACK dropped: connects looked fast
  acks_dropped.kernel.listen_drops = 8;
  acks_dropped.kernel.listen_overflows = 8;
  evidence.slow_connects = 0;
  judge_round(acks_dropped, evidence);
  EXPECT_TRUE(has(acks_dropped, "listen-overflow"));
}

TEST(Flags, TheLoadersOwnConnectionsDecideSynRetransmitsAndResets) {
  // The machine counted both, but the loader's connections opened promptly and lost nothing:
  // another program's connections did it.
  RoundFigures elsewhere = healthy();
  elsewhere.kernel.syn_retransmits = 56;
  elsewhere.kernel.resets_sent = 7;
  PointContext seen = kClosed100;
  seen.slow_connects = 0;
  seen.loader_resets = 0;
  judge_round(elsewhere, seen);
  EXPECT_FALSE(has(elsewhere, "syn-retransmits"));
  EXPECT_FALSE(has(elsewhere, "resets"));
  RoundFigures here = healthy();
  here.kernel.syn_retransmits = 56;
  here.kernel.resets_sent = 7;
  seen.slow_connects = 12;
  seen.loader_resets = 3;
  judge_round(here, seen);
  ASSERT_EQ(here.flags, (std::vector<std::string>{"syn-retransmits", "resets"}));
  EXPECT_EQ(here.notes.at(0), "12 of the loader's connections took a second or more to open: "
                              "their first SYN went unanswered and was sent again (the machine "
                              "counted 56 SYN retransmits)");
  EXPECT_EQ(here.notes.at(1), "3 requests were lost to connections the server reset (the kernel "
                              "sent 7 resets machine-wide)");
}

TEST(Flags, AnExternalLoadersResetsCountOnlyWhenTheyCostItRequests) {
  // wrk closing its connections at the end of its duration, requests in flight: resets that
  // cost it nothing.
  RoundFigures closes = healthy();
  closes.kernel.resets_sent = 186;
  closes.errors = {{"timeout", 2}};
  judge_round(closes, kClosed100);
  EXPECT_FALSE(has(closes, "resets"));
  RoundFigures lost = healthy();
  lost.kernel.resets_sent = 186;
  lost.errors = {{"read", 1666}, {"timeout", 2}};
  judge_round(lost, kClosed100);
  ASSERT_TRUE(has(lost, "resets"));
  EXPECT_EQ(lost.notes.at(0), "the kernel sent 186 TCP resets during the point (a machine-wide "
                              "count) and the loader lost 1,666 requests to errors a reset causes: "
                              "connections were refused or torn down, this server's or another "
                              "program's");
}

TEST(Flags, AnExternalLoadersListenDropsNeedAnOverflow) {
  // The server's own listener counted drops, but no queue overflowed anywhere: stray segments.
  PointContext per_port = kClosed100;
  per_port.listen_drops_per_port = true;
  RoundFigures stray = healthy();
  stray.kernel.listen_drops = 10;
  judge_round(stray, per_port);
  EXPECT_FALSE(has(stray, "listen-overflow"));
  RoundFigures full = healthy();
  full.kernel.listen_drops = 10;
  full.kernel.listen_overflows = 10;
  judge_round(full, per_port);
  EXPECT_TRUE(has(full, "listen-overflow"));
}

TEST(Flags, UncountedConnectionsAreNotMissing) {
  RoundFigures r = healthy();
  r.kernel.established_peak = 0;
  judge_round(r, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 1,
                  .connections_counted = false});
  EXPECT_FALSE(has(r, "connections-missing"));
}

TEST(Summary, MedianOfFiniteValues) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({kUnmeasured, 5}), 5);
  EXPECT_TRUE(std::isnan(median_of({})));
  EXPECT_TRUE(std::isnan(median_of({kUnmeasured})));
}

PointResult point_of(std::vector<double> rates) {
  PointResult point;
  unsigned round = 0;
  for (double rate : rates) {
    RoundFigures r;
    r.round = ++round;
    r.requests_per_s = rate;
    r.latency.p99 = rate / 10;
    r.statuses = {{"200", static_cast<std::uint64_t>(rate)}};
    r.histogram_log = "h" + std::to_string(round);
    point.rounds.push_back(r);
  }
  return point;
}

PointResult point_of_open(std::vector<double> rates, double target) {
  PointResult point = point_of(std::move(rates));
  for (RoundFigures& round : point.rounds) round.target_rate = target;
  return point;
}

TEST(Summary, MediansMinMaxAndIntervals) {
  PointResult point = point_of({1000, 1020, 980});
  point.rounds[1].errors = {{"reset", 4}};
  point.rounds[2].flags = {"resets"};
  point.rounds[2].notes = {"the kernel sent 1 resets"};
  point.rounds[0].server_cpu_us_per_request = 10;
  point.rounds[1].server_cpu_us_per_request = 9;
  point.rounds[2].server_cpu_us_per_request = 12;
  summarize_point(point);
  EXPECT_DOUBLE_EQ(point.median.requests_per_s, 1000);
  EXPECT_DOUBLE_EQ(point.median.latency.p99, 100);
  EXPECT_DOUBLE_EQ(point.requests_per_s_min, 980);
  EXPECT_DOUBLE_EQ(point.requests_per_s_max, 1020);
  EXPECT_DOUBLE_EQ(point.requests_per_s_interval.low, 980);  // three rounds: min-max, 75%
  EXPECT_DOUBLE_EQ(point.requests_per_s_interval.high, 1020);
  EXPECT_DOUBLE_EQ(point.requests_per_s_interval.confidence, 0.75);
  EXPECT_DOUBLE_EQ(point.cpu_us_per_request_interval.low, 9);
  EXPECT_DOUBLE_EQ(point.cpu_us_per_request_interval.high, 12);
  EXPECT_FALSE(point.noisy);  // within +-3%
  EXPECT_TRUE(point.noisy_note.empty());
  EXPECT_EQ(point.median.statuses.at("200"), 1000u);
  EXPECT_EQ(point.median.errors.at("reset"), 0u);  // median of 0, 4, 0
  EXPECT_EQ(point.median.flags, std::vector<std::string>{"resets"});
  EXPECT_EQ(point.median.notes, std::vector<std::string>{"the kernel sent 1 resets"});
  EXPECT_EQ(point.median.histogram_log, "h1");  // the median round's log
}

TEST(Summary, NoisyIsNotConvergedAndSaysWhatTookTheCpu) {
  PointResult above = point_of({1000, 1040, 990});
  summarize_point(above);
  EXPECT_TRUE(above.noisy);  // 4% above the median: not within +-3%
  EXPECT_FALSE(above.noisy_note.empty());
  PointResult wider = point_of({1000, 1040, 990});
  summarize_point(wider, {.target = 0.05, .confidence = 0.75});
  EXPECT_FALSE(wider.noisy);  // a 5% target takes it
  PointResult unsure = point_of({1000, 1001, 999});
  summarize_point(unsure, {.target = 0.03, .confidence = 0.9});
  EXPECT_TRUE(unsure.noisy);  // three rounds never reach 90%
  PointResult single = point_of({1000});
  summarize_point(single);
  EXPECT_FALSE(single.noisy);  // one round: nothing to tell
  EXPECT_TRUE(std::isnan(single.requests_per_s_interval.low));

  // The round whose server CPUs were busiest with other work names it.
  PointResult busy = point_of({1000, 700, 990});
  busy.rounds[1].server_cpus = {.wait_s = 0.1, .others_s = 0.3, .steal_s = 0, .others_share = 0.3,
                                .others = {{"python3", 0.2}, {"kworker/0:1", 0.1}}};
  busy.rounds[0].server_cpus = {.wait_s = 0, .others_s = 0, .steal_s = 0, .others_share = 0, .others = {}};
  summarize_point(busy);
  EXPECT_TRUE(busy.noisy);
  EXPECT_NE(busy.noisy_note.find("3 rounds from 700 to 1000"), std::string::npos) << busy.noisy_note;
  EXPECT_NE(busy.noisy_note.find("other processes used up to 30% of the server's CPUs (round 2: "
                                 "python3 20%, kworker/0:1 10%)"),
            std::string::npos)
      << busy.noisy_note;
  PointResult alone = point_of({1000, 700, 990});
  for (RoundFigures& round : alone.rounds) round.server_cpus.others_share = 0.01, round.server_cpus.others_s = 0.01;
  summarize_point(alone);
  EXPECT_NE(alone.noisy_note.find("nothing else used the server's CPUs (at most 1% in a round)"),
            std::string::npos)
      << alone.noisy_note;
  EXPECT_NE(alone.noisy_note.find("the spread is the server's own"), std::string::npos)
      << alone.noisy_note;
  // The loader at its limit in most rounds: the note says the point measured both together.
  PointResult loader_bound = alone;
  loader_bound.rounds[0].loader_cpu_share = 0.95;
  loader_bound.rounds[2].loader_cpu_share = 0.97;
  summarize_point(loader_bound);
  EXPECT_NE(loader_bound.noisy_note.find("but the loader was at its cores' limit in 2 of 3 rounds"),
            std::string::npos)
      << loader_bound.noisy_note;
  EXPECT_EQ(loader_bound.noisy_note.find("the spread is the server's own"), std::string::npos);
  EXPECT_TRUE(point_converged(point_of({1000, 1010, 995}), {}));
  EXPECT_FALSE(point_converged(point_of({1000, 1010}), {}));
}

TEST(Summary, StarvedRoundsAreLeftOutWhileMostRoundsAreClean) {
  PointResult point = point_of({1000, 500, 1010, 990});
  point.rounds[1].flags = {"server-starved"};
  point.rounds[1].notes = {"other processes used 50% of CPU 0 during this round: hog 50%"};
  summarize_point(point);
  EXPECT_EQ(point.left_out, std::vector<unsigned>{2});
  EXPECT_DOUBLE_EQ(point.median.requests_per_s, 1000);  // of 1000, 1010, 990
  EXPECT_DOUBLE_EQ(point.requests_per_s_min, 990);
  EXPECT_FALSE(point.noisy);
  ASSERT_EQ(point.median.flags, std::vector<std::string>{"server-starved"});  // still said
  EXPECT_EQ(point.median.notes.front(),
            "round 2 of 4 left out of the medians (the others had the server's CPUs to "
            "themselves): other processes used 50% of CPU 0 during this round: hog 50%");
  EXPECT_TRUE(point_converged(point, {}));
  // Starved throughout (or mostly): every round counts, and the point is what it is.
  PointResult busy = point_of({1000, 500, 700});
  busy.rounds[0].flags = busy.rounds[1].flags = {"server-starved"};
  busy.rounds[0].notes = busy.rounds[1].notes = {"other processes used 50% of CPU 0"};
  summarize_point(busy);
  EXPECT_TRUE(busy.left_out.empty());
  EXPECT_DOUBLE_EQ(busy.median.requests_per_s, 700);
  EXPECT_TRUE(busy.noisy);
  EXPECT_EQ(rounds_for_medians(busy.rounds).size(), 3u);
  // One starved round of three: the two clean ones are not enough for an interval at 75%, so
  // an auto run gives the point another round.
  PointResult short_of = point_of({1000, 500, 1010});
  short_of.rounds[1].flags = {"server-starved"};
  short_of.rounds[1].notes = {"x"};
  EXPECT_FALSE(point_converged(short_of, {}));
}

TEST(Judge, ServerStarvedNamesWhatRanOnTheServerCpus) {
  RoundFigures round = healthy();
  round.server_cpus = {.wait_s = 0.14, .others_s = 0.31, .steal_s = 0.05, .others_share = 0.31,
                       .others = {{"postgres", 0.12}, {"python3", 0.09}}};
  judge_round(round, {.mode = LoadMode::kClosed, .connections = 100, .pipeline = 1, .loader_cores = 1,
                      .server_cpus = {0}});
  ASSERT_TRUE(has(round, "server-starved"));
  const std::string& note = round.notes.back();
  EXPECT_NE(note.find("other processes used 31% of CPU 0 during this round: postgres 12%, python3 9%"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("the hypervisor stole 5%"), std::string::npos) << note;
  EXPECT_NE(note.find("waited for a CPU 14% of the time"), std::string::npos) << note;
  RoundFigures quiet = healthy();
  quiet.server_cpus = {.wait_s = 0.3, .others_s = 0.04, .steal_s = 0, .others_share = 0.04, .others = {}};
  judge_round(quiet, kClosed100);
  EXPECT_FALSE(has(quiet, "server-starved"));  // 4%, and waits behind its own threads
}

TEST(Summary, CouldNotCarryWhenTheMedianIsShortAndTheServerWasTheLimit) {
  PointResult point = point_of_open({187, 190, 185}, 448);
  point.rounds[0].flags = {"server-bound"};
  point.rounds[0].notes = {"asked for 448 requests/s, got 187 with all 100 connections busy: ..."};
  summarize_point(point);
  EXPECT_TRUE(point.could_not_carry);
  EXPECT_EQ(point.median.flags, std::vector<std::string>{"server-bound"});
  PointResult loader = point_of_open({187, 190, 185}, 448);
  loader.rounds[0].flags = {"loader-bound"};
  summarize_point(loader);
  EXPECT_FALSE(loader.could_not_carry);  // short, but the loader's doing
  PointResult carried = point_of_open({440, 447, 180}, 448);
  carried.rounds[2].flags = {"server-bound"};
  summarize_point(carried);
  EXPECT_FALSE(carried.could_not_carry);  // one bad round; the median carried the rate
}

TEST(Summary, Commas) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1234), "1,234");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
}

}  // namespace
}  // namespace ringside::harness
