// What the transport tests share: a handler that records every call (core/transport_handler.hpp)
// and the bound on loop turns a test waits for an exchange.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/transport_handler.hpp"

namespace ringside::core::testing {

inline constexpr int kMaxTurns = 400;  // 20 s at 50 ms: a stuck exchange, not a slow one

// Records every callback; each hook lets a test act from inside one (close, pause, write...).
class Recorder final : public TransportHandler {
 public:
  std::span<char> read_space() override { return {buffer.data(), space}; }
  void on_data(std::span<char> bytes) override {
    data.append(bytes.data(), bytes.size());
    ++data_calls;
    if (after_data) after_data();
  }
  void on_peer_closed() override {
    ++peer_closed;
    if (after_peer_closed) after_peer_closed();
  }
  void on_drained() override { ++drained; }
  void on_error(int error) override { errors.push_back(error); }
  void on_connected(int error) override { connected.push_back(error); }

  std::array<char, 65536> buffer{};
  std::size_t space = 65536;
  std::string data;
  int data_calls = 0;
  int peer_closed = 0;
  int drained = 0;
  std::vector<int> errors;
  std::vector<int> connected;
  std::function<void()> after_data;
  std::function<void()> after_peer_closed;
};

}  // namespace ringside::core::testing
