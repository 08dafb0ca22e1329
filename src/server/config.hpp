// Settings of `ringside serve`, with the defaults the CLI shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

namespace ringside::server {

struct ServerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: any free port (the start-up line says which)
  unsigned threads = std::thread::hardware_concurrency() == 0 ? 1 : std::thread::hardware_concurrency();
  std::size_t max_connections = 16384;
  double header_timeout_s = 10;  // a request head must arrive within this (slowloris)
  double idle_timeout_s = 60;    // a keep-alive connection may wait this long for its next request
  double drain_timeout_s = 5;    // graceful shutdown gives in-flight requests this long
  std::uint64_t max_body = 1024 * 1024;
};

}  // namespace ringside::server
