#include "harness/measure/median_interval.hpp"

#include <algorithm>
#include <cmath>

namespace ringside::harness {

double order_statistic_coverage(unsigned n, unsigned k) {
  if (k < 1 || 2 * k > n) return 0;
  // P(Binomial(n, 1/2) <= k - 1), summed term by term: C(n, i) / 2^n.
  double term = std::ldexp(1.0, -static_cast<int>(n));  // C(n, 0) / 2^n
  double below = 0;
  for (unsigned i = 0; i < k; ++i) {
    below += term;
    term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return std::max(0.0, 1 - 2 * below);
}

Interval median_interval(std::vector<double> values, double confidence) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
               values.end());
  Interval interval;
  const auto n = static_cast<unsigned>(values.size());
  if (n < 2) return interval;
  std::sort(values.begin(), values.end());
  unsigned k = 1;
  while (2 * (k + 1) <= n && order_statistic_coverage(n, k + 1) >= confidence) ++k;
  interval.low = values[k - 1];
  interval.high = values[n - k];
  interval.confidence = order_statistic_coverage(n, k);
  return interval;
}

bool converged(const Interval& interval, double median, const StoppingRule& rule) {
  if (!std::isfinite(interval.low) || !std::isfinite(interval.high) || !std::isfinite(median) ||
      !(interval.confidence >= rule.confidence - 1e-12)) {
    return false;
  }
  return interval.low >= median * (1 - rule.target) && interval.high <= median * (1 + rule.target);
}

}  // namespace ringside::harness
