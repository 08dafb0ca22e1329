// Cost of load::Histogram on the load generator's hot path, each measured next to a peer in the
// same run: recording against keeping raw samples in a preallocated vector (the exact, memory-
// hungry alternative), and percentile queries against nth_element over those raw samples.
// After the usual table it prints each pair's ratio (ours / peer; below 1 means we are faster).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "load/histogram.hpp"

namespace {

using ringside::load::Histogram;

constexpr std::size_t kSamples = 1 << 16;
constexpr double kPercentiles[] = {50, 90, 99, 99.9, 99.99, 100};

std::vector<std::uint64_t> latencies() {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(7.0, 1.2);  // ~1 ms median, long tail
  std::vector<std::uint64_t> out(kSamples);
  for (auto& v : out) v = static_cast<std::uint64_t>(dist(rng));
  return out;
}

void BM_HistogramRecord(benchmark::State& state) {
  const auto values = latencies();
  Histogram histogram;
  std::size_t i = 0;
  for (auto _ : state) {
    histogram.record(values[i++ & (kSamples - 1)]);
  }
  benchmark::DoNotOptimize(histogram.count());
}

void BM_PeerVectorRecord(benchmark::State& state) {
  const auto values = latencies();
  std::vector<std::uint64_t> raw;
  raw.reserve(kSamples);
  std::size_t i = 0;
  for (auto _ : state) {
    if (raw.size() == kSamples) raw.clear();
    raw.push_back(values[i++ & (kSamples - 1)]);
  }
  benchmark::DoNotOptimize(raw.data());
}

void BM_HistogramPercentiles(benchmark::State& state) {
  Histogram histogram;
  for (std::uint64_t v : latencies()) histogram.record(v);
  std::uint64_t out[std::size(kPercentiles)];
  for (auto _ : state) {
    histogram.value_at_percentiles(kPercentiles, out);
    benchmark::DoNotOptimize(out);
  }
}

void BM_PeerVectorPercentiles(benchmark::State& state) {
  const auto values = latencies();
  std::vector<std::uint64_t> scratch(values.size());
  std::uint64_t out[std::size(kPercentiles)];
  for (auto _ : state) {
    std::copy(values.begin(), values.end(), scratch.begin());
    for (std::size_t i = 0; i < std::size(kPercentiles); ++i) {
      const auto rank = static_cast<std::size_t>(kPercentiles[i] / 100.0 * (kSamples - 1));
      std::nth_element(scratch.begin(), scratch.begin() + rank, scratch.end());
      out[i] = scratch[rank];
    }
    benchmark::DoNotOptimize(out);
  }
}

BENCHMARK(BM_HistogramRecord);
BENCHMARK(BM_PeerVectorRecord);
BENCHMARK(BM_HistogramPercentiles);
BENCHMARK(BM_PeerVectorPercentiles);

// Remembers each run's time per iteration so main() can print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) times_[run.benchmark_name()] = run.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratio(const std::string& ours, const std::string& peer) const {
    const auto a = times_.find(ours), b = times_.find(peer);
    if (a == times_.end() || b == times_.end() || b->second == 0) return;
    std::printf("%-26s / %-26s = %.3f\n", ours.c_str(), peer.c_str(), a->second / b->second);
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratio("BM_HistogramRecord", "BM_PeerVectorRecord");
  reporter.print_ratio("BM_HistogramPercentiles", "BM_PeerVectorPercentiles");
  benchmark::Shutdown();
  return 0;
}
