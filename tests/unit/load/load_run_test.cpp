#include "load/load_run.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringside::load {
namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

LoadConfig valid_config(std::uint16_t port = 9, const char* scheme = "http") {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + "/", url,
                        error))
      << error;
  LoadConfig config;
  config.targets.push_back(make_target(url, RequestSpec{}));
  config.connections = 4;
  config.threads = 2;
  return config;
}

std::string construction_error(const LoadConfig& config) {
  try {
    LoadRun run(config);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(LoadRunValidation, TheLibraryRefusesWhatWouldDivideByZeroOrOverflow) {
  EXPECT_EQ(validate(valid_config()), "");
  struct Case {
    const char* what;
    void (*spoil)(LoadConfig&);
    const char* names;
  };
  const Case cases[] = {
      {"no URL", [](LoadConfig& c) { c.targets.clear(); }, "URL"},
      {"no connection", [](LoadConfig& c) { c.connections = 0; }, "--connections"},
      {"no thread", [](LoadConfig& c) { c.threads = 0; }, "--threads"},
      {"no pipeline", [](LoadConfig& c) { c.pipeline = 0; }, "--pipeline"},
      {"NaN rate", [](LoadConfig& c) { c.rate = std::nan(""); }, "--rate"},
      {"negative rate", [](LoadConfig& c) { c.rate = -5; }, "--rate"},
      {"infinite rate", [](LoadConfig& c) { c.rate = HUGE_VAL; }, "--rate"},
      {"huge duration", [](LoadConfig& c) { c.duration_s = 3.6e9; }, "--duration"},
      {"NaN duration", [](LoadConfig& c) { c.duration_s = std::nan(""); }, "--duration"},
      {"zero timeout", [](LoadConfig& c) { c.timeout_s = 0; }, "--timeout"},
      {"huge timeout", [](LoadConfig& c) { c.timeout_s = 1e10; }, "--timeout"},
      {"negative warm-up", [](LoadConfig& c) { c.warmup_s = -1; }, "--warmup"},
      {"tag with a space", [](LoadConfig& c) { c.tag = "a b"; }, "--tag"},
      {"tag too long", [](LoadConfig& c) { c.tag = std::string(65, 'x'); }, "--tag"},
      {"NaN start", [](LoadConfig& c) { c.start_at_epoch_s = std::nan(""); }, "--start-at"},
      {"more connections than -n", [](LoadConfig& c) { c.requests = 3; }, "--requests"},
      {"method not a token", [](LoadConfig& c) { c.targets[0].method = "G T"; }, "--method"},
  };
  for (const Case& c : cases) {
    LoadConfig config = valid_config();
    c.spoil(config);
    const std::string error = construction_error(config);
    EXPECT_NE(error.find(c.names), std::string::npos) << c.what << ": " << error;
    EXPECT_EQ(error, validate(config)) << c.what;
  }
}

Target target_of(const std::string& text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, url, error)) << error;
  return make_target(url, RequestSpec{});
}

TEST(LoadRunValidation, TlsSettingsAreRangedAndNeedHttps) {
  LoadConfig https = valid_config(8443, "https");
  https.tls_resume = 0.5;
  EXPECT_EQ(validate(https), "");
  EXPECT_EQ(construction_error(https), "");
  struct Case {
    const char* what;
    LoadConfig config;
    const char* names;
  };
  auto with = [](LoadConfig config, auto spoil) {
    spoil(config);
    return config;
  };
  const Case cases[] = {
      {"resume above 1", with(https, [](LoadConfig& c) { c.tls_resume = 1.5; }), "--tls-resume"},
      {"negative resume", with(https, [](LoadConfig& c) { c.tls_resume = -0.1; }), "--tls-resume"},
      {"NaN resume", with(https, [](LoadConfig& c) { c.tls_resume = std::nan(""); }),
       "--tls-resume"},
      {"resume over http", with(valid_config(), [](LoadConfig& c) { c.tls_resume = 1; }),
       "--tls-resume needs https://"},
      {"cacert over http", with(valid_config(), [](LoadConfig& c) { c.ca_file = "/etc/hosts"; }),
       "--cacert needs https://"},
      {"https after http",
       with(valid_config(),
            [](LoadConfig& c) { c.targets.push_back(target_of("https://127.0.0.1:9/")); }),
       "scheme of the first (http://)"},
      {"http after https",
       with(https, [](LoadConfig& c) { c.targets.push_back(target_of("http://127.0.0.1:8443/")); }),
       "scheme of the first (https://)"},
  };
  for (const Case& c : cases) {
    const std::string error = validate(c.config);
    EXPECT_NE(error.find(c.names), std::string::npos) << c.what << ": " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << c.what << ": one line";
    EXPECT_EQ(construction_error(c.config), error) << c.what;
  }
}

// The CA file is read once when the run is made: a bad one fails there, naming --cacert.
TEST(LoadRunValidation, ACaFileThatHoldsNoCertificateIsRefusedAtConstruction) {
  LoadConfig config = valid_config(8443, "https");
  for (const char* file : {"/nonexistent/ca.pem", "/etc/hostname"}) {
    config.ca_file = file;
    EXPECT_EQ(validate(config), "") << "validate() reads no file";
    const std::string error = construction_error(config);
    EXPECT_EQ(error.rfind(std::string("--cacert ") + file, 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

void expect_exact_split(std::uint64_t requests, unsigned connections, unsigned threads) {
  SCOPED_TRACE("-n " + std::to_string(requests) + " -c " + std::to_string(connections) + " -t " +
               std::to_string(threads));
  const std::vector<WorkerShare> shares = share_work(requests, connections, threads);
  ASSERT_EQ(shares.size(), std::min(connections, threads));
  std::uint64_t total = 0;
  unsigned next_connection = 0;
  for (const WorkerShare& share : shares) {
    EXPECT_EQ(share.first_connection, next_connection);
    EXPECT_GE(share.connections, connections / shares.size());
    EXPECT_LE(share.connections, connections / shares.size() + 1);
    next_connection += share.connections;
    if (requests >= connections) {
      EXPECT_GE(share.requests, share.connections);
    }
    ASSERT_LE(share.requests, kMax64 - total);  // the sum itself must not wrap
    total += share.requests;
  }
  EXPECT_EQ(next_connection, connections);
  EXPECT_EQ(total, requests);
}

TEST(CheckTag, LettersDigitsDotUnderscoreDashUpTo64) {
  for (const std::string& good : std::vector<std::string>{"g1", "gen-2.eu_west", std::string(64, 'a'), "A.B-C_9"}) {
    EXPECT_EQ(check_tag(good), "") << good;
  }
  for (const std::string& bad : std::vector<std::string>{"", std::string(65, 'a'), "a b", "a,b", "a=b", "t\tab", "é", "a/b"}) {
    EXPECT_NE(check_tag(bad), "") << bad;
  }
}

TEST(ShareWork, SharesAddUpToExactlyMinusN) {
  expect_exact_split(10, 3, 2);
  expect_exact_split(5000, 7, 2);
  expect_exact_split(3001, 10, 1);
  expect_exact_split(7, 7, 7);
  expect_exact_split(0, 5, 2);  // no -n: every share is 0 (unbounded)
  for (const WorkerShare& share : share_work(0, 5, 2)) EXPECT_EQ(share.requests, 0u);
}

TEST(ShareWork, HugeMinusNTimesConnectionsDoesNotOverflow) {
  // -n x connection index overflowed 64 bits here before: 2^63 x 2 wrapped to 0.
  expect_exact_split(std::uint64_t{1} << 63, 4, 2);
  expect_exact_split(kMax64, 3, 2);
  expect_exact_split(kMax64 - 1, 7, 3);
  expect_exact_split(kMax64, 1'000'000, 1024);
  expect_exact_split(kMax64 / 3, 4'000'000'000u, 1024);
  const std::vector<WorkerShare> halves = share_work(kMax64 - 1, 2, 2);
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(halves[0].requests, kMax64 / 2);
  EXPECT_EQ(halves[1].requests, kMax64 / 2);
}

TEST(ShareWork, MoreThreadsThanConnectionsGetsOneWorkerPerConnection) {
  const std::vector<WorkerShare> shares = share_work(100, 3, 8);
  ASSERT_EQ(shares.size(), 3u);
  for (const WorkerShare& share : shares) EXPECT_EQ(share.connections, 1u);
  EXPECT_TRUE(share_work(100, 0, 2).empty());
  EXPECT_TRUE(share_work(100, 2, 0).empty());
}

TEST(LoadRunStop, AStopBeforeStartEndsTheRunAtOnce) {
  // A port that is bound but not listening: connections are refused, nothing leaves the host.
  const int probe = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(probe, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length), 0);

  LoadConfig config = valid_config(ntohs(address.sin_port));
  config.duration_s = 3600;  // would run an hour unless the stop holds
  LoadRun run(config);
  run.stop();
  run.start();
  ASSERT_TRUE(run.wait_for(std::chrono::seconds(30)));
  LoadResult result = run.finish();
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.stats.completed, 0u);
  close(probe);
}

}  // namespace
}  // namespace ringside::load
