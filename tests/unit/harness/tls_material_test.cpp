#include "harness/process/tls_material.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct KeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Certificate = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

Certificate read_certificate(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return nullptr;
  Certificate certificate(PEM_read_X509(file, nullptr, nullptr, nullptr));
  std::fclose(file);
  return certificate;
}

Key read_key(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return nullptr;
  Key key(PEM_read_PrivateKey(file, nullptr, nullptr, nullptr));
  std::fclose(file);
  return key;
}

// X509_verify_cert of `leaf` against a store holding only `ca`, for the purpose a TLS server's
// certificate serves; the error string when it does not verify.
std::string verify(X509* leaf, X509* ca) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* context = X509_STORE_CTX_new();
  X509_STORE_CTX_init(context, store, leaf, nullptr);
  X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER);
  const bool ok = X509_verify_cert(context) == 1;
  const std::string error = ok ? "" : X509_verify_cert_error_string(X509_STORE_CTX_get_error(context));
  X509_STORE_CTX_free(context);
  X509_STORE_free(store);
  return error;
}

// The subject alternative names as "IP:..." and "DNS:...".
std::vector<std::string> alt_names(X509* certificate) {
  std::vector<std::string> names;
  auto* list = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; list != nullptr && i < sk_GENERAL_NAME_num(list); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(list, i);
    if (name->type == GEN_DNS) {
      names.push_back("DNS:" + std::string(reinterpret_cast<const char*>(
                                              ASN1_STRING_get0_data(name->d.dNSName))));
    } else if (name->type == GEN_IPADD) {
      const int length = ASN1_STRING_length(name->d.iPAddress);
      char text[INET6_ADDRSTRLEN] = {};
      inet_ntop(length == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(name->d.iPAddress), text,
                sizeof text);
      names.push_back("IP:" + std::string(text));
    }
  }
  GENERAL_NAMES_free(list);
  return names;
}

mode_t mode_of(const std::string& path) {
  struct stat status {};
  stat(path.c_str(), &status);
  return status.st_mode & 07777;
}

TEST(ServerNames, LoopbackAndLocalhostThenWhatTheRunAdds) {
  EXPECT_EQ(server_names({}), (std::vector<std::string>{"IP:127.0.0.1", "IP:::1", "DNS:localhost"}));
  EXPECT_EQ(server_names({"127.0.0.1", "10.0.0.10", "fd00::10", "bench.example", ""}),
            (std::vector<std::string>{"IP:127.0.0.1", "IP:::1", "DNS:localhost", "IP:10.0.0.10",
                                      "IP:fd00::10", "DNS:bench.example"}));
}

class Material : public ::testing::TestWithParam<TlsKey> {};

TEST_P(Material, TheChainVerifiesAndTheKeyIsTheOneAsked) {
  const auto material = TlsMaterial::make(GetParam(), {"10.0.0.10", "fd00::10"});
  const TlsFiles& files = material->files();
  const Certificate ca = read_certificate(files.ca);
  const Certificate server = read_certificate(files.cert);
  const Key key = read_key(files.key);
  ASSERT_TRUE(ca && server && key);

  EXPECT_EQ(verify(server.get(), ca.get()), "");
  EXPECT_EQ(X509_check_private_key(server.get(), key.get()), 1) << "the key matches the certificate";
  EXPECT_EQ(X509_check_ca(ca.get()), 1) << "the CA may sign";
  EXPECT_EQ(X509_check_ca(server.get()), 0) << "the server's may not";
  EXPECT_EQ(alt_names(server.get()),
            (std::vector<std::string>{"IP:127.0.0.1", "IP:::1", "DNS:localhost", "IP:10.0.0.10",
                                      "IP:fd00::10"}));
  EXPECT_EQ(X509_check_host(server.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(server.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(server.get(), "::1", 0), 1);

  if (GetParam() == TlsKey::kEcdsaP256) {
    EXPECT_EQ(EVP_PKEY_get_base_id(key.get()), EVP_PKEY_EC);
    char curve[64] = {};
    size_t length = 0;
    EVP_PKEY_get_utf8_string_param(key.get(), "group", curve, sizeof curve, &length);
    EXPECT_STREQ(curve, "prime256v1");
  } else {
    EXPECT_EQ(EVP_PKEY_get_base_id(key.get()), EVP_PKEY_RSA);
    EXPECT_EQ(EVP_PKEY_get_bits(key.get()), 2048);
  }

  // Valid now, and for a day (within a few minutes either side).
  const std::time_t now = std::time(nullptr);
  EXPECT_LT(X509_cmp_time(X509_get0_notBefore(server.get()), nullptr), 0);
  std::time_t day_less = now + kCertificateLifetimeS - 300, day_more = now + kCertificateLifetimeS + 300;
  EXPECT_GT(X509_cmp_time(X509_get0_notAfter(server.get()), &day_less), 0);
  EXPECT_LT(X509_cmp_time(X509_get0_notAfter(server.get()), &day_more), 0);

  // Only its owner reads the files; the directory goes with the material.
  EXPECT_EQ(mode_of(files.key), 0600u);
  EXPECT_EQ(mode_of(files.cert), 0600u);
  EXPECT_EQ(mode_of(files.ca), 0600u);
  EXPECT_EQ(mode_of(material->directory().string()), 0700u);
}

INSTANTIATE_TEST_SUITE_P(Keys, Material, ::testing::Values(TlsKey::kEcdsaP256, TlsKey::kRsa2048),
                         [](const auto& key) {
                           return key.param == TlsKey::kEcdsaP256 ? "EcdsaP256" : "Rsa2048";
                         });

TEST(TlsMaterial, EachRunHasItsOwnCaAndLeavesNothingBehind) {
  fs::path first_directory;
  {
    const auto first = TlsMaterial::make(TlsKey::kEcdsaP256, {});
    const auto second = TlsMaterial::make(TlsKey::kEcdsaP256, {});
    first_directory = first->directory();
    EXPECT_NE(first->directory(), second->directory());
    const Certificate first_ca = read_certificate(first->files().ca);
    const Certificate second_server = read_certificate(second->files().cert);
    EXPECT_NE(verify(second_server.get(), first_ca.get()), "") << "another run's CA does not vouch for it";
  }
  EXPECT_FALSE(fs::exists(first_directory));
}

TEST(TlsMaterial, AParentThatCannotHoldItIsOneLine) {
  try {
    TlsMaterial::make(TlsKey::kEcdsaP256, {}, "/nonexistent/ringside-test");
    FAIL() << "made it in a folder that does not exist";
  } catch (const TlsError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("TLS certificates: cannot create a directory like /nonexistent/ringside-test/", 0), 0u)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace ringside::harness
