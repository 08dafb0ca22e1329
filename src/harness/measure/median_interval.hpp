// How well a point's median is known after n rounds: a distribution-free confidence interval for
// the median from order statistics, and the stopping rule of `rounds = "auto"`.
//
// Why this method: a round is one start of the server measured once, so a point has 3 to ~10
// values, and on a shared machine their noise is one-sided (another task only ever slows the
// server) and heavy-tailed (a round that met a busy neighbour). Intervals that assume a normal
// spread (Student's t) or resample a handful of values (the bootstrap) are not to be trusted at
// that size. The order-statistic interval assumes only that rounds are independent: the true
// median lies between the k-th smallest and the k-th largest of n values with probability
// 1 - 2 P(Binomial(n, 1/2) <= k - 1), exactly, whatever the distribution. Its price is coarse
// levels: with 3 rounds the widest interval, min-max, covers 75%; 5 rounds reach 94%; more rounds
// let it drop the outliers (with 8, the 2nd smallest to the 2nd largest covers 93%).
//
//   Interval i = median_interval({98.1, 97.5, 99.0}, 0.75);   // {97.5, 99.0, 0.75}
//   bool known = converged(i, 98.1, {.target = 0.03, .confidence = 0.75});
#pragma once

#include <vector>

#include "harness/results/results.hpp"

namespace ringside::harness {

// Probability that [x(k), x(n+1-k)] of n independent values covers their true median
// (1 <= k <= n/2; 0 otherwise).
double order_statistic_coverage(unsigned n, unsigned k);

// The narrowest order-statistic interval whose coverage is at least `confidence`; when n values
// are too few for it, the widest one (min-max) with the coverage it has. Non-finite values are
// left out; fewer than 2 values give an unmeasured interval.
Interval median_interval(std::vector<double> values, double confidence);

struct StoppingRule {
  double target = 0.03;       // the interval within median x (1 +- target)
  double confidence = 0.75;   // at least this coverage
};

// The median is known: the interval reaches the rule's confidence and lies within +-target.
bool converged(const Interval& interval, double median, const StoppingRule& rule);

}  // namespace ringside::harness
