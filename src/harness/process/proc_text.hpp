// Reading the kernel's text files (/proc, /sys) and the harness's own small state files: a whole
// file, its whitespace-separated fields, a field as a number. One copy for every reader.
//
//   for (std::string_view field : split_fields(read_text("/proc/stat"))) ...
//   std::uint64_t ticks = 0;  if (!parse_field(fields[13], ticks)) ...
#pragma once

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

// The whole file; "" when it cannot be read (a process that ended, a file /proc does not have).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fields of `text` between spaces, tabs and newlines.
inline std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < text.size()) {
    at = text.find_first_not_of(" \t\n", at);
    if (at == std::string_view::npos) break;
    const std::size_t end = text.find_first_of(" \t\n", at);
    fields.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    at = end == std::string_view::npos ? text.size() : end;
  }
  return fields;
}

// A whole field as a number; false (value untouched or partial) when it is not one.
template <typename T>
bool parse_field(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace ringside::harness
