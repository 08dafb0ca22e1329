#include "load/merge.hpp"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "load/hdr_log.hpp"
#include "load/report.hpp"

namespace ringside::load {
namespace {

using nlohmann::json;

// A generator's result with the given latencies, `per_second` completions, begun at `start`.
LoadResult generator(const std::vector<std::uint64_t>& latencies, double start,
                     std::vector<std::uint64_t> per_second, double elapsed) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url("http://127.0.0.1:8080/", url, error)) << error;
  LoadResult r;
  r.config.targets = {make_target(url, RequestSpec{})};
  r.config.connections = 4;
  r.config.threads = 1;
  r.config.rate = 100;
  r.start_epoch_s = start;
  r.elapsed_s = elapsed;
  Stats& s = r.stats;
  for (const std::uint64_t v : latencies) {
    s.latency.record(v);
    s.latency_uncorrected.record(v / 2 + 1);
    s.waiting.record(v / 3 + 1);
  }
  s.connect.record(50);
  s.completed = latencies.size();
  s.started = s.completed + 1;
  s.count_error(ErrorClass::kTimeout, 1);
  s.status[200] = s.completed;
  s.per_second = std::move(per_second);
  return r;
}

// Through text, as `ringside merge` reads a file.
GeneratorResult as_read(const LoadResult& r, const std::string& file) {
  return read_generator_json(json::parse(to_json(r).dump()), file);
}

std::vector<std::uint64_t> random_latencies(unsigned seed, std::size_t n) {
  std::mt19937_64 random(seed);
  std::lognormal_distribution<double> latency(7.0, 1.2);  // ~1 ms, tails to seconds
  std::vector<std::uint64_t> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(static_cast<std::uint64_t>(latency(random)) + 1);
  return values;
}

void expect_same_buckets(const Histogram& a, const Histogram& b) {
  ASSERT_TRUE(a.same_layout(b));
  ASSERT_EQ(a.count(), b.count());
  for (std::size_t i = 0; i < a.counts_length(); ++i) {
    ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << "bucket " << i;
  }
}

TEST(Merge, HistogramsMergeExactlyAndPercentilesMatchOneHistogramOfEveryValue) {
  const auto a = random_latencies(1, 5000), b = random_latencies(2, 3000), c = random_latencies(3, 7);
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(generator(a, 100, {5000}, 1), "a.json"));
  inputs.push_back(as_read(generator(b, 100.001, {3000}, 1), "b.json"));
  inputs.push_back(as_read(generator(c, 100.002, {7}, 1), "c.json"));
  const MergedRun merged = merge_generators(std::move(inputs));
  Histogram reference;
  for (const auto* values : {&a, &b, &c}) {
    for (const std::uint64_t v : *values) reference.record(v);
  }
  const Histogram& total = merged.total.stats.latency;
  expect_same_buckets(total, reference);
  for (const double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(total.value_at_percentile(p), reference.value_at_percentile(p)) << p;
  }
  EXPECT_EQ(total.min(), reference.min());
  EXPECT_EQ(total.max(), reference.max());
  EXPECT_NEAR(total.mean(), reference.mean(), 1e-6 * reference.mean());
  EXPECT_NEAR(total.stdev(), reference.stdev(), 1e-6 * reference.stdev());
  EXPECT_EQ(merged.total.stats.completed, 8007u);
  EXPECT_EQ(merged.total.stats.errored, 3u);
  EXPECT_EQ(merged.total.stats.errors[static_cast<std::size_t>(ErrorClass::kTimeout)], 3u);
  EXPECT_EQ(merged.total.stats.status[200], 8007u);
  EXPECT_EQ(merged.total.stats.connect.count(), 3u);
  EXPECT_TRUE(merged.warnings.empty()) << merged.warnings.front();
}

TEST(Merge, RefusesHistogramsOfOtherSettingsNamingBothFiles) {
  LoadResult odd = generator({}, 100, {}, 1);
  odd.stats.latency = Histogram(1, 3'600'000'000, 2);
  odd.stats.latency.record(10);
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(generator({10, 20}, 100, {2}, 1), "gen1.json"));
  inputs.push_back(as_read(odd, "gen2.json"));
  try {
    (void)merge_generators(std::move(inputs));
    FAIL() << "merged histograms of different settings";
  } catch (const MergeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gen1.json and gen2.json"), std::string::npos) << what;
    EXPECT_NE(what.find("different settings"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(Merge, WarnsOncePerGeneratorThatBeganMoreThan5msLate) {
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(generator({10}, 100.000, {1}, 2), "a.json"));
  inputs.push_back(as_read(generator({10}, 100.004, {1}, 2), "b.json"));  // within 5 ms
  inputs.push_back(as_read(generator({10}, 100.012, {1}, 2), "c.json"));
  const MergedRun merged = merge_generators(std::move(inputs));
  ASSERT_EQ(merged.warnings.size(), 1u);
  EXPECT_NE(merged.warnings[0].find("c.json began 12.000 ms after a.json"), std::string::npos)
      << merged.warnings[0];
  EXPECT_NEAR(merged.start_spread_s, 0.012, 1e-9);
}

TEST(Merge, RateIsWhatEachCompletedInsideTheCommonWindowOverItsLength) {
  // a: 100..103, 100/s; b: 100.5..103.5, 300/s. Window [100.5, 103]: a's 250 + b's 750 over 2.5 s.
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(generator({10}, 100.0, {100, 100, 100}, 3), "a.json"));
  inputs.push_back(as_read(generator({10}, 100.5, {300, 300, 300}, 3), "b.json"));
  const MergedRun merged = merge_generators(std::move(inputs));
  EXPECT_DOUBLE_EQ(merged.window_start_epoch_s, 100.5);
  EXPECT_DOUBLE_EQ(merged.window_end_epoch_s, 103.0);
  EXPECT_NEAR(merged.window_completed, 1000, 1e-9);
  EXPECT_NEAR(merged.requests_per_s, 400, 1e-9);
  EXPECT_EQ(merged.warnings.size(), 1u) << "500 ms apart";
  const json j = merge_to_json(merged);
  EXPECT_NEAR(j["requests_per_s"]["overall"].get<double>(), 400, 1e-9);
  EXPECT_NEAR(j["common_window"]["seconds"].get<double>(), 2.5, 1e-9);
  ASSERT_EQ(j["merged_from"].size(), 2u);
  EXPECT_EQ(j["merged_from"][1]["file"], "b.json");
  EXPECT_EQ(j["merged_from"][1]["kind"], "json");
  EXPECT_EQ(j["config"]["connections"], 8);
  EXPECT_DOUBLE_EQ(j["config"]["rate"].get<double>(), 200);
}

TEST(Merge, CompletedWithinCountsAStraddlingSecondByItsOverlap) {
  const LoadResult r = generator({}, 10.0, {100, 200, 50}, 2.5);
  EXPECT_DOUBLE_EQ(completed_within(r, 10.0, 12.5), 350);
  EXPECT_DOUBLE_EQ(completed_within(r, 10.5, 11.5), 50 + 100);
  EXPECT_DOUBLE_EQ(completed_within(r, 12.0, 12.25), 25) << "the last second is half long";
  EXPECT_DOUBLE_EQ(completed_within(r, 20, 30), 0);
}

TEST(Merge, Schema1ResultsAreRefusedWithWhatToDo) {
  json old = json::parse(to_json(generator({10}, 1, {1}, 1)).dump());
  old["schema"] = 1;
  for (const char* key : {"latency_us", "latency_uncorrected_us", "connect_us", "waiting_us"}) {
    old[key].erase("hdr");
  }
  try {
    (void)read_generator_json(old, "old.json");
    FAIL() << "read a schema 1 document";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("old.json: schema 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rerun"), std::string::npos) << e.what();
  }
}

// An https generator: `handshakes` TLS handshakes of which `resumed` resumed.
LoadResult https_generator(double start, std::uint64_t handshakes, std::uint64_t resumed) {
  LoadResult r = generator({100, 200}, start, {2}, 1);
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url("https://127.0.0.1:8443/", url, error)) << error;
  r.config.targets = {make_target(url, RequestSpec{})};
  TlsSummary& tls = r.stats.tls;
  tls.used = true;
  tls.version = "TLSv1.3";
  tls.cipher = "TLS_AES_128_GCM_SHA256";
  tls.group = "x25519";
  tls.alpn = "http/1.1";
  tls.handshakes = handshakes;
  tls.resumed = resumed;
  for (std::uint64_t i = 0; i < handshakes; ++i) r.stats.tls_handshake.record(300 + i);
  r.stats.count_error(ErrorClass::kTls, 2);
  return r;
}

TEST(Merge, TlsHandshakesAndTheirHistogramAddUp) {
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(https_generator(100.000, 10, 4), "a.json"));
  inputs.push_back(as_read(https_generator(100.001, 30, 27), "b.json"));
  const MergedRun merged = merge_generators(std::move(inputs));
  const Stats& s = merged.total.stats;
  EXPECT_TRUE(s.tls.used);
  EXPECT_EQ(s.tls.version, "TLSv1.3");
  EXPECT_EQ(s.tls.cipher, "TLS_AES_128_GCM_SHA256");
  EXPECT_EQ(s.tls.handshakes, 40u);
  EXPECT_EQ(s.tls.resumed, 31u);
  EXPECT_EQ(s.tls_handshake.count(), 40u);
  EXPECT_EQ(s.tls_handshake.min(), 300u);
  EXPECT_EQ(s.errors[static_cast<std::size_t>(ErrorClass::kTls)], 4u);
  const json j = merge_to_json(merged);
  EXPECT_EQ(j["tls"]["handshakes"], 40);
  EXPECT_EQ(j["tls"]["resumed"], 31);
  EXPECT_EQ(j["tls"]["alpn"], "http/1.1");
  EXPECT_EQ(j["tls_handshake_us"]["count"], 40);
  EXPECT_EQ(j["errors"]["tls"], 4);
  EXPECT_NE(format_merge_text(merged).find("40 handshakes, 31 resumed (77.5%)"), std::string::npos)
      << format_merge_text(merged);
}

// Schema 2 (before TLS) is still read: a plain http:// run with no TLS fields.
TEST(Merge, Schema2ResultsAreReadAsPlainHttp) {
  json old = json::parse(to_json(generator({10, 20}, 100, {2}, 1)).dump());
  old["schema"] = 2;
  old.erase("tls");
  old.erase("tls_handshake_us");
  old["errors"].erase("tls");
  std::vector<GeneratorResult> inputs;
  inputs.push_back(read_generator_json(old, "old.json"));
  inputs.push_back(as_read(https_generator(100, 5, 0), "new.json"));
  const MergedRun merged = merge_generators(std::move(inputs));
  EXPECT_FALSE(merged.generators[0].result.stats.tls.used);
  EXPECT_EQ(merged.total.stats.completed, 4u);
  EXPECT_EQ(merged.total.stats.tls.handshakes, 5u);
  EXPECT_EQ(merged.total.stats.tls_handshake.count(), 5u);
  EXPECT_EQ(merge_to_json(merged)["schema"], kJsonSchemaVersion);

  for (int schema : {kJsonSchemaVersion + 1, 99}) {
    old["schema"] = schema;
    try {
      (void)read_generator_json(old, "future.json");
      FAIL() << "read schema " << schema;
    } catch (const MergeError& e) {
      EXPECT_NE(std::string(e.what()).find("future.json: schema " + std::to_string(schema)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Merge, AMalformedTlsObjectIsRefusedNamingTheFile) {
  json doc = json::parse(to_json(https_generator(100, 3, 1)).dump());
  doc["tls"]["version"] = 13;
  EXPECT_THROW((void)read_generator_json(doc, "bad.json"), MergeError);
  doc["tls"] = "TLSv1.3";
  EXPECT_THROW((void)read_generator_json(doc, "bad.json"), MergeError);
  doc.erase("tls");
  EXPECT_FALSE(read_generator_json(doc, "ok.json").result.stats.tls.used);
}

TEST(Merge, AHistogramLogGivesLatencyAndCompletionsOnly) {
  const auto values = random_latencies(4, 900);
  SecondHistograms seconds;
  seconds.enable(Histogram{});
  for (std::size_t i = 0; i < values.size(); ++i) seconds.record(i / 300, values[i]);
  seconds.finish();
  std::ostringstream log;
  HdrLogWriter writer(log);
  writer.write_header(200.0);
  write_intervals_per_second(writer, seconds, 3.0, "g2");
  std::istringstream in(log.str());
  std::vector<GeneratorResult> inputs;
  inputs.push_back(as_read(generator(random_latencies(5, 600), 200.001, {200, 200, 200}, 3), "g1.json"));
  inputs.push_back(read_generator_log(in, "g2.hlog"));
  EXPECT_TRUE(inputs.back().latency_only);
  EXPECT_EQ(inputs.back().tag, "g2");
  EXPECT_EQ(inputs.back().result.stats.per_second, (std::vector<std::uint64_t>{300, 300, 300}));
  const MergedRun merged = merge_generators(std::move(inputs));
  EXPECT_EQ(merged.total.stats.latency.count(), 1500u);
  EXPECT_EQ(merged.total.stats.completed, 1500u);
  EXPECT_EQ(merged.total.stats.errored, 1u) << "only the JSON result knows of failures";
  EXPECT_NEAR(merged.requests_per_s, 500, 1);
  const std::string text = format_merge_text(merged);
  EXPECT_NE(text.find("histogram logs give latency and completions only"), std::string::npos) << text;
  EXPECT_TRUE(merge_to_json(merged)["merged_from"][1]["failed"].is_null());
}

}  // namespace
}  // namespace ringside::load
