// Times three tiny kernels on the CPU it is pinned to, every 100 ms, and prints one line per
// sample: wall-clock seconds, then nanoseconds per iteration of
//   a dependent multiply-add chain (the core's clock: SMT-insensitive),
//   eight independent add/xor chains (issue throughput: slows when an SMT sibling is busy),
//   a 16 KiB memcpy (per copy: L1 bandwidth).
// Each is the best of three ~50 us tries, so a preemption does not read as a slow core.
//
//   cc -O2 -o core_probe core_probe.c && taskset -c 1 ./core_probe 120 > probe.txt
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;
static char source[16384], target[16384];

static double dependent_chain(void) {
  uint64_t x = 1;
  double start = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 50000; i++) x = x * 6364136223846793005ull + 1;
  sink = x;
  return (now(CLOCK_MONOTONIC) - start) * 1e9 / 50000;
}

static double independent_chains(void) {
  uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
  double start = now(CLOCK_MONOTONIC);
  for (uint64_t i = 0; i < 50000; i++) {
    a += b ^ i; b += c ^ a; c += d ^ i; d += e ^ c;
    e += f ^ i; f += g ^ e; g += h ^ i; h += a ^ g;
  }
  sink = a + b + c + d + e + f + g + h;
  return (now(CLOCK_MONOTONIC) - start) * 1e9 / 50000;
}

static double copies(void) {
  double start = now(CLOCK_MONOTONIC);
  for (int i = 0; i < 20; i++) {
    memcpy(target, source, sizeof source);
    source[i] = target[i + 1];
  }
  sink = (uint64_t)target[5];
  return (now(CLOCK_MONOTONIC) - start) * 1e9 / 20;
}

static double best_of_three(double (*kernel)(void)) {
  double best = kernel();
  for (int i = 0; i < 2; i++) {
    double t = kernel();
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 60;
  double end = now(CLOCK_MONOTONIC) + seconds;
  while (now(CLOCK_MONOTONIC) < end) {
    double chain = best_of_three(dependent_chain);
    double issue = best_of_three(independent_chains);
    double copy = best_of_three(copies);
    printf("%.3f %.3f %.3f %.1f\n", now(CLOCK_REALTIME), chain, issue, copy);
    fflush(stdout);
    usleep(100000);
  }
  return 0;
}
