// A parsed request head. Every string_view points into the caller's input buffer (except `path`,
// which is a static "/" for an absolute-form target without a path), so a Request is valid only
// while those bytes are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "http/token.hpp"

namespace ringside::http {

inline constexpr std::size_t kMaxHeaders = 100;
inline constexpr std::size_t kMaxHeadBytes = 16 * 1024;

enum class Method : std::uint8_t { kGet, kHead, kPost, kPut, kDelete, kOptions, kPatch, kConnect, kTrace, kOther };

enum class BodyFraming : std::uint8_t { kNone, kContentLength, kChunked };

struct Header {
  std::string_view name;
  std::string_view value;
};

struct Request {
  std::string_view method_name;
  Method method = Method::kOther;
  std::string_view target;  // as sent: "/path?query", or "http://host/path?query" (absolute-form)
  std::string_view path;    // the target's path, up to '?'; "/" when an absolute-form has none
  std::string_view query;   // after '?', without it
  // The host (and port) the request is for: an absolute-form target's authority, which overrides
  // Host (RFC 9112 section 3.2.2), else the Host header's value; empty when neither gives one.
  std::string_view host;
  std::uint8_t version_minor = 1;
  BodyFraming framing = BodyFraming::kNone;
  std::uint64_t content_length = 0;
  bool keep_alive = true;
  bool expect_continue = false;
  std::size_t header_count = 0;
  std::array<Header, kMaxHeaders> headers;

  [[nodiscard]] std::span<const Header> header_list() const { return {headers.data(), header_count}; }
  // First header with this name (ASCII case-insensitive), or an empty view.
  [[nodiscard]] std::string_view header(std::string_view name) const;
  [[nodiscard]] bool has_body() const { return framing != BodyFraming::kNone; }
};


}  // namespace ringside::http
