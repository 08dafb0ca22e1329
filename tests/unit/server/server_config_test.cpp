#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "server/config.hpp"
#include "server/server.hpp"

namespace ringside::server {
namespace {

TEST(ServerConfigValidate, DefaultsPass) { EXPECT_EQ(validate(ServerConfig{}), ""); }

TEST(ServerConfigValidate, EachOutOfRangeSettingIsNamed) {
  struct Case {
    const char* field;
    std::function<void(ServerConfig&)> spoil;
  };
  const std::vector<Case> cases = {
      {"threads", [](ServerConfig& c) { c.threads = 0; }},
      {"threads", [](ServerConfig& c) { c.threads = kMaxThreads + 1; }},
      {"max_connections", [](ServerConfig& c) { c.max_connections = 0; }},
      {"header_timeout_s", [](ServerConfig& c) { c.header_timeout_s = std::nan(""); }},
      {"header_timeout_s", [](ServerConfig& c) { c.header_timeout_s = 1e10; }},
      {"header_timeout_s", [](ServerConfig& c) { c.header_timeout_s = 0; }},
      {"idle_timeout_s", [](ServerConfig& c) { c.idle_timeout_s = 1e10; }},
      {"idle_timeout_s", [](ServerConfig& c) { c.idle_timeout_s = -1; }},
      {"drain_timeout_s", [](ServerConfig& c) { c.drain_timeout_s = INFINITY; }},
      {"drain_timeout_s", [](ServerConfig& c) { c.drain_timeout_s = -0.5; }},
      {"max_body", [](ServerConfig& c) { c.max_body = kMaxBodyLimit + 1; }},
      {"h2_max_streams", [](ServerConfig& c) { c.h2_max_streams = 0; }},
      {"h2_max_streams", [](ServerConfig& c) { c.h2_max_streams = kMaxH2Streams + 1; }},
      {"h2_max_header_list", [](ServerConfig& c) { c.h2_max_header_list = kMinH2HeaderList - 1; }},
      {"h2_max_header_list", [](ServerConfig& c) { c.h2_max_header_list = kMaxH2HeaderList + 1; }},
      {"h2_initial_window", [](ServerConfig& c) { c.h2_initial_window = 0; }},
      {"h2_initial_window", [](ServerConfig& c) { c.h2_initial_window = kMaxH2Window + 1; }},
      {"h2_reset_burst", [](ServerConfig& c) { c.h2_reset_burst = 0; }},
      {"h2_reset_rate", [](ServerConfig& c) { c.h2_reset_rate = 0; }},
  };
  for (const Case& test : cases) {
    ServerConfig config;
    test.spoil(config);
    const std::string problem = validate(config);
    EXPECT_NE(problem.find(test.field), std::string::npos) << test.field << ": " << problem;
  }
}

TEST(ServerConfigValidate, TheServerRefusesABadConfigBeforeListening) {
  ServerConfig config;
  config.port = 0;
  config.threads = 1;
  config.idle_timeout_s = std::nan("");
  EXPECT_THROW(Server(config, Router{}), std::invalid_argument);
}

}  // namespace
}  // namespace ringside::server
