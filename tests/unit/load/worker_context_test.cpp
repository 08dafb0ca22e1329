#include "load/worker_context.hpp"

#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <cmath>
#include <string>
#include <vector>

namespace ringside::load {
namespace {

// Which of the first `attempts` connection attempts offer the last session.
std::vector<int> offers(double ratio, int attempts) {
  ResumeAccumulator accumulator(ratio);
  std::vector<int> offered;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (accumulator.next()) offered.push_back(attempt);
  }
  return offered;
}

TEST(ResumeAccumulator, SpreadsTheRatioEvenlyAndExactly) {
  EXPECT_TRUE(offers(0, 1000).empty());
  EXPECT_EQ(offers(1, 5), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(offers(0.5, 10), (std::vector<int>{2, 4, 6, 8, 10}));
  EXPECT_EQ(offers(0.25, 12), (std::vector<int>{4, 8, 12}));
  // floor(n * ratio) of the first n attempts, for every n: no drift over a long run.
  for (double ratio : {0.1, 0.3, 1.0 / 3, 0.7, 0.999999}) {
    ResumeAccumulator accumulator(ratio);
    const auto step = static_cast<std::uint64_t>(std::llround(ratio * ResumeAccumulator::kWhole));
    std::uint64_t offered = 0;
    for (std::uint64_t n = 1; n <= 1'000'000; ++n) {
      offered += accumulator.next();
      ASSERT_EQ(offered, n * step / ResumeAccumulator::kWhole) << ratio << " after " << n;
    }
  }
}

TEST(ResumeAccumulator, OutOfRangeRatiosAreClamped) {
  EXPECT_TRUE(offers(-1, 100).empty());
  EXPECT_TRUE(offers(std::nan(""), 100).empty());
  EXPECT_EQ(offers(7, 3), (std::vector<int>{1, 2, 3}));
}

LoadConfig config_for(const std::string& url_text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(url_text, url, error)) << error;
  LoadConfig config;
  config.targets.push_back(make_target(url, RequestSpec{}));
  return config;
}

TEST(MakeTlsClient, NoneForPlainHttp) {
  std::string error;
  EXPECT_EQ(make_tls_client(config_for("http://127.0.0.1/"), error), nullptr);
  EXPECT_EQ(error, "");
}

// SNI for a name only (RFC 6066); an address is verified as an address, and only with --cacert.
TEST(MakeTlsClient, SendsTheHostAsSniOnlyWhenItIsAName) {
  std::string error;
  auto named = make_tls_client(config_for("https://localhost:8443/"), error);
  ASSERT_NE(named, nullptr) << error;
  EXPECT_FALSE(named->is_server());
  EXPECT_EQ(named->server_name(), "localhost");
  auto by_address = make_tls_client(config_for("https://127.0.0.1:8443/"), error);
  ASSERT_NE(by_address, nullptr) << error;
  EXPECT_EQ(by_address->server_name(), "");
}

TEST(MakeTlsClient, VerifiesAnAddressAgainstTheCertificatesIpWithACaFile) {
  const char* ca = "/etc/ssl/certs/ca-certificates.crt";
  LoadConfig config = config_for("https://127.0.0.1:8443/");
  config.ca_file = ca;
  std::string error;
  auto client = make_tls_client(config, error);
  ASSERT_NE(client, nullptr) << error;
  EXPECT_EQ(SSL_CTX_get_verify_mode(client->native()), SSL_VERIFY_PEER);
  char* ip = X509_VERIFY_PARAM_get1_ip_asc(SSL_CTX_get0_param(client->native()));
  ASSERT_NE(ip, nullptr);
  EXPECT_STREQ(ip, "127.0.0.1");
  OPENSSL_free(ip);

  config.ca_file.clear();  // nothing verified: as wrk and h2load
  client = make_tls_client(config, error);
  ASSERT_NE(client, nullptr) << error;
  EXPECT_EQ(SSL_CTX_get_verify_mode(client->native()), SSL_VERIFY_NONE);
}

TEST(MakeTlsClient, ACaFileWithoutCertificatesIsOneLineNamingTheFlag) {
  LoadConfig config = config_for("https://127.0.0.1:8443/");
  config.ca_file = "/etc/hostname";
  std::string error;
  EXPECT_EQ(make_tls_client(config, error), nullptr);
  EXPECT_EQ(error.rfind("--cacert /etc/hostname: ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

}  // namespace
}  // namespace ringside::load
