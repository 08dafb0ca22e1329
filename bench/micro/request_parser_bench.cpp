// How long parse_request takes on the requests the benchmarks send (wrk's, ab's, a browser-like
// one), against the floor of a memmem for the end of the head over the same bytes: the ratio says
// how much parsing and validation cost over merely finding the request.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string_view>

#include "http/request_parser.hpp"

namespace {

using namespace ringside::http;

constexpr std::string_view kWrk = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
constexpr std::string_view kAb =
    "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:8080\r\nUser-Agent: "
    "ApacheBench/2.3\r\nAccept: */*\r\n\r\n";
constexpr std::string_view kBrowser =
    "GET /users/42?fields=name,email HTTP/1.1\r\nHost: example.test\r\nUser-Agent: Mozilla/5.0 "
    "(X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0\r\nAccept: text/html,application/"
    "xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\nAccept-"
    "Encoding: gzip, deflate, br\r\nConnection: keep-alive\r\nCookie: session=0123456789abcdef; "
    "theme=dark\r\nCache-Control: max-age=0\r\n\r\n";

void parse(benchmark::State& state, std::string_view input) {
  Request request;
  for (auto _ : state) {
    auto result = parse_request(input, request);
    benchmark::DoNotOptimize(result);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * input.size()));
}

void find_end(benchmark::State& state, std::string_view input) {
  for (auto _ : state) {
    const void* end = memmem(input.data(), input.size(), "\r\n\r\n", 4);
    benchmark::DoNotOptimize(end);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * input.size()));
}

BENCHMARK_CAPTURE(parse, wrk, kWrk);
BENCHMARK_CAPTURE(find_end, wrk, kWrk);
BENCHMARK_CAPTURE(parse, ab, kAb);
BENCHMARK_CAPTURE(find_end, ab, kAb);
BENCHMARK_CAPTURE(parse, browser, kBrowser);
BENCHMARK_CAPTURE(find_end, browser, kBrowser);

}  // namespace

BENCHMARK_MAIN();
