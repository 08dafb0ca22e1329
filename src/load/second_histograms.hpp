// The latency of each second of the measured phase, for `ringside load --hlog`: one interval per
// second in the log, so runs merged from several machines can be plotted over time.
//
//   SecondHistograms seconds;
//   seconds.enable(layout);            // before the run: allocates the running histogram once
//   seconds.record(second, value);     // per completion; no allocation
//   seconds.finish();                  // after the run: closes the running second
//   total.merge(seconds);              // after join, second by second
//   Histogram h = seconds.histogram(i);
//
// Only the running second is a full Histogram (136 KB at the default layout). When a completion
// belongs to a later second, the running one is kept as its non-empty buckets (a few hundred
// in a typical second: one allocation per second, never per request) and reset. Counts are kept
// exactly, so the seconds summed equal a whole-run histogram fed the same values bucket for
// bucket; min, max and mean of histogram(i) are bucket-precise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "load/histogram.hpp"

namespace ringside::load {

class SecondHistograms {
 public:
  void enable(const Histogram& layout);
  [[nodiscard]] bool enabled() const { return running_.has_value(); }
  // `second` never goes back (a worker's clock is monotonic); an earlier one is counted in the
  // running second.
  void record(std::size_t second, std::uint64_t value) {
    if (second > running_second_) rotate(second);
    running_->record(value);
  }
  void finish();
  // Adds other's seconds to the same seconds of this; both finished, same layout (else
  // std::invalid_argument). Enables this one if it was not.
  void merge(const SecondHistograms& other);

  [[nodiscard]] std::size_t size() const { return seconds_.size(); }
  // An empty histogram of the layout for a second past size(). Allocates.
  [[nodiscard]] Histogram histogram(std::size_t second) const;

 private:
  struct Second {
    std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;  // (index, count), ascending
  };

  void rotate(std::size_t next_second);
  void close_running();

  std::optional<Histogram> running_;
  std::size_t running_second_ = 0;
  bool running_closed_ = false;
  std::vector<Second> seconds_;
  std::uint64_t lowest_ = Histogram::kDefaultLowest;
  std::uint64_t highest_ = Histogram::kDefaultHighest;
  int digits_ = Histogram::kDefaultDigits;
};

}  // namespace ringside::load
