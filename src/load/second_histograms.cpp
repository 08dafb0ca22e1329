#include "load/second_histograms.hpp"

#include <stdexcept>

namespace ringside::load {

void SecondHistograms::enable(const Histogram& layout) {
  lowest_ = layout.lowest_trackable();
  highest_ = layout.highest_trackable();
  digits_ = layout.significant_digits();
  running_.emplace(lowest_, highest_, digits_);
  running_second_ = 0;
  running_closed_ = false;
  seconds_.clear();
}

void SecondHistograms::close_running() {
  Second& second = seconds_.emplace_back();
  const Histogram& h = *running_;
  for (std::size_t i = 0; i < h.counts_length(); ++i) {
    if (h.count_at_index(i) != 0) {
      second.buckets.emplace_back(static_cast<std::uint32_t>(i), h.count_at_index(i));
    }
  }
  running_->reset();
}

void SecondHistograms::rotate(std::size_t next_second) {
  close_running();
  // Seconds in which nothing completed get an empty entry, so index i stays second i.
  while (seconds_.size() < next_second) seconds_.emplace_back();
  running_second_ = next_second;
}

void SecondHistograms::finish() {
  if (!running_ || running_closed_) return;
  close_running();
  running_closed_ = true;
}

void SecondHistograms::merge(const SecondHistograms& other) {
  if (!other.running_) return;
  if (!running_) {
    enable(*other.running_);
    running_closed_ = true;
  }
  if (lowest_ != other.lowest_ || highest_ != other.highest_ || digits_ != other.digits_) {
    throw std::invalid_argument("SecondHistograms::merge: the layouts differ");
  }
  if (other.seconds_.size() > seconds_.size()) seconds_.resize(other.seconds_.size());
  for (std::size_t s = 0; s < other.seconds_.size(); ++s) {
    const auto& theirs = other.seconds_[s].buckets;
    if (theirs.empty()) continue;
    auto& ours = seconds_[s].buckets;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> sum;
    sum.reserve(ours.size() + theirs.size());
    std::size_t a = 0, b = 0;
    while (a < ours.size() || b < theirs.size()) {
      if (b == theirs.size() || (a < ours.size() && ours[a].first < theirs[b].first)) {
        sum.push_back(ours[a++]);
      } else if (a == ours.size() || theirs[b].first < ours[a].first) {
        sum.push_back(theirs[b++]);
      } else {
        sum.emplace_back(ours[a].first, ours[a].second + theirs[b].second);
        ++a;
        ++b;
      }
    }
    ours = std::move(sum);
  }
}

Histogram SecondHistograms::histogram(std::size_t second) const {
  Histogram h(lowest_, highest_, digits_);
  if (second < seconds_.size()) {
    for (const auto& [index, count] : seconds_[second].buckets) h.add_at_index(index, count);
  }
  return h;
}

}  // namespace ringside::load
