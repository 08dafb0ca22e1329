#include "harness/results/kinds.hpp"

#include <array>
#include <cstddef>

namespace ringside::harness {
namespace {

// Each table is indexed by its enum's value, in declaration order.
constexpr std::array<std::string_view, 2> kModeNames = {"closed", "open"};
constexpr std::array<std::string_view, 5> kLoaderNames = {"ringside", "wrk", "ab", "h2load", "hey"};
constexpr std::array<std::string_view, 4> kProtocolNames = {"http", "https", "h2c", "h2"};
constexpr std::array<std::string_view, 2> kTlsKeyNames = {"ecdsa-p256", "rsa2048"};
constexpr std::array<std::string_view, 3> kStatusNames = {"ran", "skipped", "failed"};

template <typename Enum, std::size_t N>
std::optional<Enum> from_name(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view mode_name(LoadMode mode) { return kModeNames[static_cast<std::size_t>(mode)]; }

std::optional<LoadMode> mode_from_name(std::string_view name) {
  return from_name<LoadMode>(kModeNames, name);
}

std::string_view loader_name(LoaderKind kind) { return kLoaderNames[static_cast<std::size_t>(kind)]; }

std::optional<LoaderKind> loader_from_name(std::string_view name) {
  return from_name<LoaderKind>(kLoaderNames, name);
}

std::string_view protocol_name(Protocol protocol) {
  return kProtocolNames[static_cast<std::size_t>(protocol)];
}

std::optional<Protocol> protocol_from_name(std::string_view name) {
  return from_name<Protocol>(kProtocolNames, name);
}

std::string_view tls_key_name(TlsKey key) { return kTlsKeyNames[static_cast<std::size_t>(key)]; }

std::optional<TlsKey> tls_key_from_name(std::string_view name) {
  return from_name<TlsKey>(kTlsKeyNames, name);
}

std::string_view status_name(ContestantStatus status) {
  return kStatusNames[static_cast<std::size_t>(status)];
}

std::optional<ContestantStatus> status_from_name(std::string_view name) {
  return from_name<ContestantStatus>(kStatusNames, name);
}

}  // namespace ringside::harness
