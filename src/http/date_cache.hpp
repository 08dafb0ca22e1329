// The value of the Date header (IMF-fixdate, RFC 9110 section 5.6.7), formatted once a second per
// worker rather than once a response.
#pragma once

#include <ctime>
#include <string_view>

namespace ringside::http {

class DateCache {
 public:
  DateCache() { update(std::time(nullptr)); }

  // Re-formats when `now` is a different second; returns whether it did.
  bool update(std::time_t now);
  [[nodiscard]] std::string_view value() const { return {buffer_, kLength}; }

  static constexpr std::size_t kLength = 29;  // "Sun, 06 Nov 1994 08:49:37 GMT"

 private:
  std::time_t second_ = -1;
  char buffer_[kLength + 1] = {};
};

}  // namespace ringside::http
