// GCC 12 at -O1 with ASan warns that std::regex's internal std::function "may be used
// uninitialized" (a false positive inside libstdc++); it must not fail this test's build.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "load/report.hpp"

#include "load/hdr_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringside::load {
namespace {

using nlohmann::json;

Target target_for(const std::string& text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, url, error)) << error;
  return make_target(url, RequestSpec{});
}

// A run with known numbers: 100 started, 95 completed, 3 failed, 2 in flight, over 2.5 s.
LoadResult known_result() {
  LoadResult r;
  r.config.targets = {target_for("http://127.0.0.1:8080/hello")};
  r.config.connections = 10;
  r.config.threads = 2;
  r.config.requests = 100;
  r.elapsed_s = 2.5;
  r.start_epoch_s = 1'700'000'000.25;
  Stats& s = r.stats;
  s.started = 100;
  s.in_flight = 2;
  for (int i = 0; i < 50; ++i) s.count_completion(0);
  for (int i = 0; i < 40; ++i) s.count_completion(1);
  for (int i = 0; i < 5; ++i) s.count_completion(2);  // the partial last half second
  s.count_error(ErrorClass::kReset, 2);
  s.count_error(ErrorClass::kTimeout, 1);
  s.status[200] = 90;
  s.status[404] = 5;
  s.bytes_read = 5'000'000;
  s.bytes_written = 2'500'000;
  s.connections_opened = 12;
  for (int i = 0; i < 95; ++i) s.latency.record(i < 50 ? 800 : 1500);
  for (int i = 0; i < 95; ++i) s.latency_uncorrected.record(i < 50 ? 800 : 1500);
  s.connect.record(120);
  s.waiting.record(700);
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(FormatMicros, PicksTheUnit) {
  EXPECT_EQ(format_micros(0), "0us");
  EXPECT_EQ(format_micros(812), "812us");
  EXPECT_EQ(format_micros(1234), "1.23ms");
  EXPECT_EQ(format_micros(2'500'000), "2.50s");
}

// A value that rounds up into the next unit is shown in that unit, not as "1000us".
TEST(FormatMicros, RoundingUpMovesToTheNextUnit) {
  EXPECT_EQ(format_micros(999.4), "999us");
  EXPECT_EQ(format_micros(999.7), "1.00ms");
  EXPECT_EQ(format_micros(999'996), "1.00s");
}

TEST(SummarizeRates, UsesWholeSecondsOnly) {
  const RateSummary rates = summarize_rates(known_result());
  EXPECT_DOUBLE_EQ(rates.overall, 95 / 2.5);
  EXPECT_DOUBLE_EQ(rates.mean, 45);  // (50 + 40) / 2: the half second with 5 is left out
  EXPECT_DOUBLE_EQ(rates.stdev, 5);
  EXPECT_DOUBLE_EQ(rates.max, 50);
}

TEST(SummarizeRates, ShorterThanASecondFallsBackToTheOverallRate) {
  LoadResult r = known_result();
  r.elapsed_s = 0.5;
  const RateSummary rates = summarize_rates(r);
  EXPECT_DOUBLE_EQ(rates.overall, 190);
  EXPECT_DOUBLE_EQ(rates.mean, 190);
  EXPECT_DOUBLE_EQ(rates.max, 190);
  EXPECT_DOUBLE_EQ(rates.stdev, 0);
}

TEST(FormatText, ShowsTheNumbersWithTheirLabels) {
  const std::string text = format_text(known_result());
  for (const char* part : {
           "ringside load  GET http://127.0.0.1:8080/hello\n",
           "10 connections, 2 threads, keep-alive, pipeline 1, 100 requests",
           "Requests      95 completed, 3 failed, 2 in flight at the stop (100 started)",
           "Conservation  started 100 = completed 95 + failed 3 + in flight 2: holds",
           "Elapsed       2.50 s",
           "Requests/s    38.00   per second: avg 45.00  stdev 5.00  max 50.00",
           "Throughput    read 2.00 MB/s, written 1.00 MB/s",
           "Status codes  2xx 90 (200: 90) 4xx 5 (404: 5)\n",
           "Errors        reset 2 timeout 1\n",
           "Connection times (ms)",
       }) {
    EXPECT_TRUE(contains(text, part)) << "missing \"" << part << "\" in:\n" << text;
  }
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  min +800us\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  max +1\.50ms\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  50% +800us\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  99% +1\.50ms\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  Connect: +0\.12 )"))) << text;
  EXPECT_FALSE(contains(text, "interrupted")) << text;
  EXPECT_FALSE(contains(text, "corrected")) << text;
}

TEST(FormatText, SaysWhenConservationBreaksOrTheRunWasInterrupted) {
  LoadResult r = known_result();
  r.stats.started = 101;
  r.interrupted = true;
  const std::string text = format_text(r);
  EXPECT_TRUE(contains(text, ": BROKEN")) << text;
  EXPECT_TRUE(contains(text, "interrupted: these are the numbers measured until the stop")) << text;
}

TEST(FormatText, ConstantRateShowsCorrectedAndUncorrectedLatency) {
  LoadResult r = known_result();
  r.config.rate = 40;
  r.stats.latency.record(9000);
  const std::string text = format_text(r);
  EXPECT_TRUE(contains(text, "constant rate 40 req/s")) << text;
  EXPECT_TRUE(contains(text, "corrected (from the intended send time) | uncorrected")) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n  max +9\.00ms \| +1\.50ms\n)"))) << text;
}

TEST(FormatText, EmptyRunSaysNone) {
  LoadResult r;
  r.config.targets = {target_for("http://[::1]:9/"), target_for("http://127.0.0.1:9/b")};
  const std::string text = format_text(r);
  EXPECT_TRUE(contains(text, "GET http://[::1]:9/ (+1 more URLs, round-robin)")) << text;
  EXPECT_TRUE(contains(text, "Status codes  none\n")) << text;
  EXPECT_TRUE(contains(text, "Errors        none\n")) << text;
  EXPECT_FALSE(contains(text, "Latency")) << text;
}

TEST(FormatText, ConnectFailuresWithoutARequestAreShown) {
  LoadResult r = known_result();
  r.stats.connect_failures = 4;
  EXPECT_TRUE(contains(format_text(r), "(and 4 failed connects with no request waiting)"));
}

// --- JSON: checked against docs/load-json.schema.json -------------------------------------------

json load_schema() {
  std::ifstream in(std::string(RINGSIDE_SOURCE_DIR) + "/docs/load-json.schema.json");
  EXPECT_TRUE(in.good()) << "cannot read docs/load-json.schema.json";
  return json::parse(in);
}

// The subset of JSON Schema (2020-12) that docs/load-json.schema.json uses: type, const, required,
// (one or a list), properties, patternProperties, additionalProperties: false, items, minItems,
// minLength, pattern,
// minimum, exclusiveMinimum, maximum and local $refs. Appends one line per violation to `errors`.
class SchemaChecker {
 public:
  explicit SchemaChecker(const json& root) : root_(root) {}

  void check(const json& value, const json& schema, const std::string& path,
             std::vector<std::string>& errors) const {
    if (schema.contains("$ref")) {
      const std::string ref = schema["$ref"];
      check(value, root_.at(json::json_pointer(ref.substr(1))), path, errors);
      return;
    }
    auto fail = [&](const std::string& what) { errors.push_back(path + ": " + what); };
    if (schema.contains("type") && !has_any_type(value, schema["type"])) {
      fail("is not of type " + schema["type"].dump() + ": " + value.dump());
      return;
    }
    if (schema.contains("const") && value != schema["const"]) fail("is not " + schema["const"].dump());
    if (value.is_number()) {
      const double number = value.get<double>();
      if (schema.contains("minimum") && number < schema["minimum"].get<double>()) fail("below minimum");
      if (schema.contains("maximum") && number > schema["maximum"].get<double>()) fail("above maximum");
      if (schema.contains("exclusiveMinimum") && number <= schema["exclusiveMinimum"].get<double>()) {
        fail("not above exclusiveMinimum");
      }
    }
    if (value.is_string()) {
      const std::string text = value;
      if (schema.contains("minLength") && text.size() < schema["minLength"].get<std::size_t>()) {
        fail("shorter than minLength");
      }
      if (schema.contains("pattern") && !matches(schema["pattern"], text)) fail("does not match pattern");
    }
    if (value.is_array()) {
      if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>()) {
        fail("fewer than minItems");
      }
      if (schema.contains("items")) {
        for (std::size_t i = 0; i < value.size(); ++i) {
          check(value[i], schema["items"], path + "/" + std::to_string(i), errors);
        }
      }
    }
    if (value.is_object()) check_object(value, schema, path, errors);
  }

 private:
  void check_object(const json& value, const json& schema, const std::string& path,
                    std::vector<std::string>& errors) const {
    for (const auto& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>())) errors.push_back(path + ": missing " + key.dump());
    }
    const json pattern_properties = schema.value("patternProperties", json::object());
    for (const auto& [key, member] : value.items()) {
      bool known = false;
      if (schema.contains("properties") && schema["properties"].contains(key)) {
        known = true;
        check(member, schema["properties"][key], path + "/" + key, errors);
      }
      for (const auto& [pattern, member_schema] : pattern_properties.items()) {
        if (!matches(pattern, key)) continue;
        known = true;
        check(member, member_schema, path + "/" + key, errors);
      }
      if (!known && schema.contains("additionalProperties") && schema["additionalProperties"] == false) {
        errors.push_back(path + ": unexpected key \"" + key + "\"");
      }
    }
  }

  static bool matches(const std::string& pattern, const std::string& text) {
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
  }

  // "type" is one name or a list of them (["string", "null"]).
  static bool has_any_type(const json& value, const json& type) {
    if (type.is_string()) return has_type(value, type.get<std::string>());
    for (const json& one : type) {
      if (has_type(value, one.get<std::string>())) return true;
    }
    return false;
  }

  static bool has_type(const json& value, const std::string& type) {
    if (type == "null") return value.is_null();
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_boolean();
    if (type == "integer") {
      return value.is_number_integer() ||
             (value.is_number_float() && value.get<double>() == static_cast<double>(static_cast<long long>(value.get<double>())));
    }
    if (type == "number") return value.is_number();
    return false;
  }

  const json& root_;
};

std::vector<std::string> schema_errors(const json& document) {
  const json schema = load_schema();
  std::vector<std::string> errors;
  SchemaChecker(schema).check(document, schema, "", errors);
  return errors;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// Round-trips through text, as a reader of `--json` output sees it.
json json_of(const LoadResult& r) { return json::parse(to_json(r).dump()); }

TEST(ToJson, MatchesTheSchema) {
  const auto errors = schema_errors(json_of(known_result()));
  EXPECT_TRUE(errors.empty()) << joined(errors);
}

TEST(ToJson, EmptyAndInterruptedRunsMatchTheSchemaToo) {
  LoadResult empty;
  empty.config.targets = {target_for("http://[::1]:9/")};
  EXPECT_TRUE(schema_errors(json_of(empty)).empty()) << joined(schema_errors(json_of(empty)));
  LoadResult interrupted = known_result();
  interrupted.interrupted = true;
  interrupted.config.rate = 1000.5;
  interrupted.config.pipeline = 64;
  interrupted.config.warmup_s = 0.5;
  interrupted.stats.status[0] = 3;  // out-of-range codes are not listed under "codes"
  EXPECT_TRUE(schema_errors(json_of(interrupted)).empty()) << joined(schema_errors(json_of(interrupted)));
}

// The checker itself must refuse what breaks the schema, or the tests above prove nothing.
TEST(ToJson, TheSchemaCheckerCatchesViolations) {
  json document = json_of(known_result());
  document.erase("per_second");
  document["requests"]["completed"] = -1;
  document["status"]["codes"]["abc"] = 1;
  document["config"]["urls"] = json::array({"ftp://x"});
  document["surplus"] = true;
  const std::string errors = joined(schema_errors(document));
  EXPECT_TRUE(contains(errors, "missing \"per_second\"")) << errors;
  EXPECT_TRUE(contains(errors, "/requests/completed: below minimum")) << errors;
  EXPECT_TRUE(contains(errors, "/status/codes: unexpected key \"abc\"")) << errors;
  EXPECT_TRUE(contains(errors, "/config/urls/0: does not match pattern")) << errors;
  EXPECT_TRUE(contains(errors, ": unexpected key \"surplus\"")) << errors;
}

TEST(ToJson, CarriesTheNumbers) {
  const json j = json_of(known_result());
  EXPECT_EQ(j["schema"], kJsonSchemaVersion);
  EXPECT_EQ(j["config"]["urls"], json::array({"http://127.0.0.1:8080/hello"}));
  EXPECT_EQ(j["config"]["method"], "GET");
  EXPECT_EQ(j["config"]["connections"], 10);
  EXPECT_EQ(j["config"]["requests"], 100);
  EXPECT_EQ(j["requests"], (json{{"started", 100}, {"completed", 95}, {"failed", 3},
                                 {"in_flight", 2}, {"warmup", 0}}));
  EXPECT_DOUBLE_EQ(j["requests_per_s"]["overall"].get<double>(), 38);
  EXPECT_DOUBLE_EQ(j["requests_per_s"]["per_second_mean"].get<double>(), 45);
  EXPECT_EQ(j["per_second"], json::array({50, 40, 5}));
  EXPECT_EQ(j["throughput"]["bytes_read"], 5'000'000);
  EXPECT_DOUBLE_EQ(j["throughput"]["read_bytes_per_s"].get<double>(), 2'000'000);
  EXPECT_EQ(j["status"]["classes"]["2xx"], 90);
  EXPECT_EQ(j["status"]["classes"]["4xx"], 5);
  EXPECT_EQ(j["status"]["classes"]["5xx"], 0);
  EXPECT_EQ(j["status"]["codes"], (json{{"200", 90}, {"404", 5}}));
  EXPECT_EQ(j["errors"]["reset"], 2);
  EXPECT_EQ(j["errors"]["timeout"], 1);
  EXPECT_EQ(j["errors"]["closed"], 0);
  EXPECT_EQ(j["connections_opened"], 12);
  EXPECT_EQ(j["latency_us"]["count"], 95);
  EXPECT_EQ(j["latency_us"]["min"], 800);
  EXPECT_EQ(j["latency_us"]["percentiles"]["50"], 800);
  EXPECT_EQ(j["latency_us"]["percentiles"]["99.9"], 1500);
  EXPECT_EQ(j["latency_corrected"], false);
  EXPECT_EQ(j["connect_us"]["max"], 120);
}

TEST(ToJson, Schema2NamesTheGeneratorAndItsStart) {
  json j = json_of(known_result());
  EXPECT_EQ(j["schema"], kJsonSchemaVersion);
  EXPECT_TRUE(j["tag"].is_null());
  EXPECT_TRUE(j["intended_start_epoch_s"].is_null());
  EXPECT_TRUE(j["start_late_s"].is_null());
  LoadResult tagged = known_result();
  tagged.config.tag = "gen-1.a_b";
  tagged.intended_start_epoch_s = 1'700'000'000.0;
  tagged.start_late_s = 0.25;
  j = json_of(tagged);
  EXPECT_EQ(j["tag"], "gen-1.a_b");
  EXPECT_DOUBLE_EQ(j["intended_start_epoch_s"].get<double>(), 1'700'000'000.0);
  EXPECT_DOUBLE_EQ(j["start_late_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["start_epoch_s"].get<double>(), 1'700'000'000.25);
  EXPECT_TRUE(schema_errors(j).empty()) << joined(schema_errors(j));
  j["tag"] = "has space";
  EXPECT_TRUE(contains(joined(schema_errors(j)), "/tag: does not match pattern"));
}

TEST(ToJson, EveryHistogramCarriesItsExactBucketsAndLayout) {
  const LoadResult r = known_result();
  const json j = json_of(r);
  const std::pair<const char*, const Histogram*> histograms[] = {
      {"latency_us", &r.stats.latency}, {"latency_uncorrected_us", &r.stats.latency_uncorrected},
      {"connect_us", &r.stats.connect}, {"waiting_us", &r.stats.waiting},
      {"tls_handshake_us", &r.stats.tls_handshake}};
  for (const auto& [key, original] : histograms) {
    SCOPED_TRACE(key);
    EXPECT_EQ(j[key]["lowest"], 1);
    EXPECT_EQ(j[key]["highest"], 60'000'000);
    EXPECT_EQ(j[key]["digits"], 3);
    const Histogram decoded = decode_compressed(j[key]["hdr"].get<std::string>());
    ASSERT_TRUE(decoded.same_layout(*original));
    for (std::size_t i = 0; i < original->counts_length(); ++i) {
      ASSERT_EQ(decoded.count_at_index(i), original->count_at_index(i)) << i;
    }
  }
  json broken = j;
  broken["latency_us"].erase("hdr");
  EXPECT_TRUE(contains(joined(schema_errors(broken)), "/latency_us: missing \"hdr\""));
}

// An https run: 300 handshakes, 150 of them resumed.
LoadResult https_result() {
  LoadResult r = known_result();
  r.config.targets = {target_for("https://127.0.0.1:8443/hello")};
  r.config.tls_resume = 0.5;
  TlsSummary& tls = r.stats.tls;
  tls.used = true;
  tls.version = "TLSv1.3";
  tls.cipher = "TLS_AES_256_GCM_SHA384";
  tls.group = "x25519";
  tls.alpn = "http/1.1";
  tls.handshakes = 300;
  tls.resumed = 150;
  for (int i = 0; i < 300; ++i) r.stats.tls_handshake.record(i < 150 ? 400 : 900);
  return r;
}

TEST(FormatText, HttpsShowsWhatWasNegotiatedAndTheHandshakeTimes) {
  const std::string text = format_text(https_result());
  EXPECT_TRUE(contains(text, "ringside load  GET https://127.0.0.1:8443/hello\n")) << text;
  EXPECT_TRUE(contains(text,
                       "TLS           TLSv1.3, TLS_AES_256_GCM_SHA384, x25519, ALPN http/1.1; "
                       "300 handshakes, 150 resumed (50.0%)\n"))
      << text;
  // The handshake row sits between Connect and Waiting.
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(\n  Connect: +0\.12 [^\n]*\n  TLS: +0\.40 +0\.65 [^\n]*\n  Waiting:)")))
      << text;
}

TEST(FormatText, HttpsWithoutACompletedHandshakeSaysSo) {
  LoadResult r = https_result();
  r.stats.tls = TlsSummary{};
  r.stats.tls.used = true;
  r.stats.tls_handshake = Histogram{};
  const std::string text = format_text(r);
  EXPECT_TRUE(contains(text, "TLS           no handshake completed; 0 handshakes, 0 resumed\n"))
      << text;
  EXPECT_FALSE(contains(text, "  TLS: ")) << text;
}

TEST(FormatText, PlainHttpHasNoTlsLine) {
  const std::string text = format_text(known_result());
  EXPECT_FALSE(contains(text, "TLS")) << text;
}

TEST(ToJson, TlsIsNullForHttpAndTheNegotiationForHttps) {
  const json plain = json_of(known_result());
  EXPECT_TRUE(plain["tls"].is_null());
  EXPECT_EQ(plain["tls_handshake_us"]["count"], 0);
  EXPECT_FALSE(plain["config"].contains("tls_resume"));
  EXPECT_FALSE(plain["config"].contains("cacert"));

  const json j = json_of(https_result());
  EXPECT_EQ(j["tls"], (json{{"version", "TLSv1.3"}, {"cipher", "TLS_AES_256_GCM_SHA384"},
                            {"group", "x25519"}, {"alpn", "http/1.1"}, {"handshakes", 300},
                            {"resumed", 150}}));
  EXPECT_EQ(j["tls_handshake_us"]["count"], 300);
  EXPECT_EQ(j["tls_handshake_us"]["min"], 400);
  EXPECT_EQ(j["config"]["urls"], json::array({"https://127.0.0.1:8443/hello"}));
  EXPECT_DOUBLE_EQ(j["config"]["tls_resume"].get<double>(), 0.5);
  EXPECT_TRUE(j["config"]["cacert"].is_null());
  EXPECT_TRUE(schema_errors(j).empty()) << joined(schema_errors(j));

  LoadResult none = https_result();
  none.stats.tls = TlsSummary{};
  none.stats.tls.used = true;
  none.config.ca_file = "/tmp/ca.pem";
  const json k = json_of(none);
  EXPECT_TRUE(k["tls"]["version"].is_null());
  EXPECT_TRUE(k["tls"]["alpn"].is_null());
  EXPECT_EQ(k["tls"]["handshakes"], 0);
  EXPECT_EQ(k["config"]["cacert"], "/tmp/ca.pem");
  EXPECT_TRUE(schema_errors(k).empty()) << joined(schema_errors(k));
}

TEST(ToJson, TheTlsErrorClassHasItsStableKey) {
  LoadResult r = https_result();
  r.stats.count_error(ErrorClass::kTls, 4);
  const json j = json_of(r);
  EXPECT_EQ(j["errors"]["tls"], 4);
  EXPECT_TRUE(contains(format_text(r), " tls 4")) << format_text(r);
  EXPECT_TRUE(schema_errors(j).empty()) << joined(schema_errors(j));
}

TEST(FormatText, ShowsTheTagAndTheStart) {
  LoadResult r = known_result();
  r.config.tag = "g1";
  r.intended_start_epoch_s = 1'700'000'000.0;
  r.start_late_s = 0.0004;
  const std::string text = format_text(r);
  EXPECT_TRUE(contains(text, "tag g1")) << text;
  EXPECT_TRUE(contains(text, "0.400 ms after the instant")) << text;
}

}  // namespace
}  // namespace ringside::load
