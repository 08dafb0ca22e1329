#include "share_flag.hpp"

#include "number_flag.hpp"

namespace ringside::apps {

std::optional<load::LoadShare> parse_share(std::string_view text, std::string& error) {
  const std::size_t slash = text.find('/');
  const std::optional<std::uint64_t> index =
      slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(0, slash));
  const std::optional<std::uint64_t> of =
      slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(slash + 1));
  if (!index || !of) {
    error = "must be K/N, this generator's part K (from 0) of N: 0/2 and 1/2 split a load in "
            "two, got: " + quote_value(text);
    return std::nullopt;
  }
  if (*of == 0 || *of > kMaxShares) {
    error = "N must be from 1 to " + std::to_string(kMaxShares) + " parts, got: " + quote_value(text);
    return std::nullopt;
  }
  if (*index >= *of) {
    error = "K runs from 0 to N-1 (" + std::to_string(*of - 1) + " here), got: " + quote_value(text);
    return std::nullopt;
  }
  return load::LoadShare{static_cast<unsigned>(*index), static_cast<unsigned>(*of)};
}


std::string apply_share(load::LoadConfig& config, load::LoadShare share) {
  const std::string name = std::to_string(share.index) + "/" + std::to_string(share.of);
  const auto connections = static_cast<unsigned>(load::share_of(config.connections, share));
  if (connections == 0) {
    return "--share " + name + ": " + std::to_string(config.connections) + " connections split " +
           std::to_string(share.of) + " ways leave this part none: give -c at least " +
           std::to_string(share.of) + " (connections are counted over all parts)";
  }
  const std::uint64_t requests = load::share_of(config.requests, share);
  if (config.requests > 0 && requests == 0) {
    return "--share " + name + ": " + std::to_string(config.requests) + " requests (-n) split " +
           std::to_string(share.of) + " ways leave this part none: give -n at least " +
           std::to_string(share.of) + " (requests are counted over all parts)";
  }
  config.connections = connections;
  config.requests = requests;
  config.rate /= share.of;
  config.share = share;
  if (config.tag.empty()) {
    config.tag = "share-" + std::to_string(share.index) + "-of-" + std::to_string(share.of);
  }
  return "";
}

}  // namespace ringside::apps
