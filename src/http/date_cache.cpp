#include "http/date_cache.hpp"

namespace ringside::http {
namespace {

void put2(char* out, int value) {
  out[0] = static_cast<char>('0' + value / 10);
  out[1] = static_cast<char>('0' + value % 10);
}

}  // namespace

bool DateCache::update(std::time_t now) {
  if (now == second_) return false;
  second_ = now;
  std::tm tm{};
  gmtime_r(&now, &tm);
  static constexpr char kDays[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr char kMonths[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char* p = buffer_;
  for (int i = 0; i < 3; ++i) *p++ = kDays[tm.tm_wday][i];
  *p++ = ',';
  *p++ = ' ';
  put2(p, tm.tm_mday);
  p += 2;
  *p++ = ' ';
  for (int i = 0; i < 3; ++i) *p++ = kMonths[tm.tm_mon][i];
  *p++ = ' ';
  int year = tm.tm_year + 1900;
  put2(p, year / 100 % 100);
  put2(p + 2, year % 100);
  p += 4;
  *p++ = ' ';
  put2(p, tm.tm_hour);
  p[2] = ':';
  put2(p + 3, tm.tm_min);
  p[5] = ':';
  put2(p + 6, tm.tm_sec);
  p += 8;
  *p++ = ' ';
  *p++ = 'G';
  *p++ = 'M';
  *p++ = 'T';
  *p = '\0';
  return true;
}

}  // namespace ringside::http
