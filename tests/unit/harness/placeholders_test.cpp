#include "harness/config/placeholders.hpp"

#include <gtest/gtest.h>

namespace ringside::harness {
namespace {

PlaceholderValues values() {
  return {"8080", "4", "postgres://u@127.0.0.1:5432/db", "/src/contestants/x", "/tmp/run-1",
          "/usr/bin/ringside", "::1", "/src/contestants", "/tmp/tls/server.pem",
          "/tmp/tls/server-key.pem", "/tmp/tls/ca.pem"};
}

TEST(ExpandPlaceholders, ReplacesEveryKnownOne) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"{port}", "8080"},
      {"--port={port}", "--port=8080"},
      {"{threads}", "4"},
      {"{db_url}", "postgres://u@127.0.0.1:5432/db"},
      {"{dir}/server.js", "/src/contestants/x/server.js"},
      {"{workdir}/nginx.conf", "/tmp/run-1/nginx.conf"},
      {"{ringside}", "/usr/bin/ringside"},
      {"{host}", "::1"},
      {"{bundled}/node_modules:{bundled}", "/src/contestants/node_modules:/src/contestants"},
      {"{port}:{port}", "8080:8080"},
      {"{tls_cert}", "/tmp/tls/server.pem"},
      {"--tls-key={tls_key}", "--tls-key=/tmp/tls/server-key.pem"},
      {"{tls_ca}", "/tmp/tls/ca.pem"},
      {"plain", "plain"},
      {"", ""},
  };
  for (const Case& c : cases) EXPECT_EQ(expand_placeholders(c.text, values()), c.expected) << c.text;
}

TEST(ExpandPlaceholders, LeavesOtherBracesAlone) {
  EXPECT_EQ(expand_placeholders(R"({"a":1})", values()), R"({"a":1})");
  EXPECT_EQ(expand_placeholders("{}", values()), "{}");
  EXPECT_EQ(expand_placeholders("{PORT}", values()), "{PORT}");
  EXPECT_EQ(expand_placeholders("{port", values()), "{port");
  EXPECT_EQ(expand_placeholders("{{port}}", values()), "{8080}");
  EXPECT_EQ(expand_placeholders("{nope}", values()), "{nope}");  // check_placeholders refuses it
}

TEST(CheckPlaceholders, AcceptsKnownOnesWhereAllowed) {
  EXPECT_EQ(check_placeholders("--port={port} -t {threads} {db_url} {dir} {workdir} {ringside}",
                               kStartPlaceholders),
            "");
  EXPECT_EQ(check_placeholders(R"(--config={"x":{"y":1}})", kStartPlaceholders), "");
  EXPECT_EQ(check_placeholders("{dir}/build.sh {ringside} {bundled}", kBuildPlaceholders), "");
  EXPECT_EQ(check_placeholders("{host}:{port} {bundled}/lib", kStartPlaceholders), "");
}

// A plain start leaves the TLS files empty: one start command serves both protocols.
TEST(ExpandPlaceholders, TlsFilesAreEmptyOnAPlainStart) {
  PlaceholderValues plain = values();
  plain.tls_cert = plain.tls_key = plain.tls_ca = "";
  EXPECT_EQ(expand_placeholders("TLS={tls_cert}:{tls_key}:{tls_ca}", plain), "TLS=::");
}

TEST(CheckPlaceholders, TlsFilesAreForTheStartOnly) {
  EXPECT_EQ(check_placeholders("{tls_cert} {tls_key} {tls_ca}", kStartPlaceholders), "");
  EXPECT_NE(check_placeholders("{tls_cert}", kBuildPlaceholders).find("not available here"),
            std::string::npos);
  EXPECT_NE(check_placeholders("{nope}", kStartPlaceholders).find("{tls_cert} {tls_key} {tls_ca}"),
            std::string::npos);
}

TEST(CheckPlaceholders, NamesAnUnknownOne) {
  const std::string error = check_placeholders("--port={prot}", kStartPlaceholders);
  EXPECT_NE(error.find("unknown placeholder {prot}"), std::string::npos) << error;
  EXPECT_NE(error.find("{port}"), std::string::npos) << error;  // lists the known ones
}

TEST(CheckPlaceholders, RefusesOnesNotAvailableInThatField) {
  const std::string error = check_placeholders("cargo build --jobs {threads}", kBuildPlaceholders);
  EXPECT_NE(error.find("{threads} is not available here"), std::string::npos) << error;
  EXPECT_NE(check_placeholders("{port}", kBuildPlaceholders), "");
  EXPECT_NE(check_placeholders("{workdir}", kBuildPlaceholders), "");
}

}  // namespace
}  // namespace ringside::harness
