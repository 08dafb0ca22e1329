#include "harness/measure/kernel_counters.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/process/listen_sockets.hpp"

namespace ringside::harness {
namespace {

std::string read_file(const char* path, bool& ok) {
  std::ifstream in(path);
  if (!in) {
    ok = false;
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> found;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    const std::size_t end = line.find_first_of(" \t", start);
    found.push_back(line.substr(start, end - start));
    at = end == std::string_view::npos ? line.size() : end;
  }
  return found;
}

std::uint64_t to_number(std::string_view text) {
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// Both files are pairs of lines: "Prefix: Name1 Name2 ..." then "Prefix: value1 value2 ...".
template <typename Take>
void read_pairs(std::string_view text, std::string_view prefix, Take take) {
  std::vector<std::string_view> names;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (!line.starts_with(prefix)) continue;
    std::vector<std::string_view> fields = words(line.substr(prefix.size()));
    if (names.empty()) {
      names = std::move(fields);
      continue;
    }
    for (std::size_t i = 0; i < names.size() && i < fields.size(); ++i) take(names[i], fields[i]);
    names.clear();
  }
}

std::uint64_t minus(std::uint64_t later, std::uint64_t earlier) {
  return later >= earlier ? later - earlier : 0;
}

}  // namespace

KernelCounters KernelCounters::operator-(const KernelCounters& earlier) const {
  KernelCounters delta;
  delta.listen_overflows = minus(listen_overflows, earlier.listen_overflows);
  delta.listen_drops = minus(listen_drops, earlier.listen_drops);
  delta.syn_retransmits = minus(syn_retransmits, earlier.syn_retransmits);
  delta.resets_sent = minus(resets_sent, earlier.resets_sent);
  delta.readable = readable && earlier.readable;
  return delta;
}

void parse_netstat(std::string_view text, KernelCounters& counters) {
  read_pairs(text, "TcpExt:", [&](std::string_view name, std::string_view value) {
    if (name == "ListenOverflows") counters.listen_overflows = to_number(value);
    if (name == "ListenDrops") counters.listen_drops = to_number(value);
    if (name == "TCPSynRetrans") counters.syn_retransmits = to_number(value);
  });
}

void parse_snmp(std::string_view text, KernelCounters& counters) {
  read_pairs(text, "Tcp:", [&](std::string_view name, std::string_view value) {
    if (name == "OutRsts") counters.resets_sent = to_number(value);
  });
}

KernelCounters read_kernel_counters() {
  KernelCounters counters;
  bool ok = true;
  parse_netstat(read_file("/proc/net/netstat", ok), counters);
  parse_snmp(read_file("/proc/net/snmp", ok), counters);
  counters.readable = ok;
  return counters;
}

std::uint64_t sum_listener_drops(const void* data, std::size_t length, int port, bool& done,
                                 bool& error) {
  std::vector<ListenSocket> sockets;
  parse_listen_sockets(data, length, port, sockets, done, error);
  std::uint64_t drops = 0;
  for (const ListenSocket& socket : sockets) drops += socket.drops;
  return drops;
}

std::optional<std::uint64_t> listener_drops(int port) {
  const std::optional<std::vector<ListenSocket>> sockets = listen_sockets(port);
  if (!sockets) return std::nullopt;
  std::uint64_t drops = 0;
  for (const ListenSocket& socket : *sockets) drops += socket.drops;
  return drops;
}

std::uint64_t count_established_in(std::string_view text, int port) {
  // "  sl  local_address rem_address   st ..." then "   0: 0100007F:1F90 0100007F:C350 01 ...";
  // the port is hexadecimal after the colon; state 01 is TCP_ESTABLISHED.
  std::uint64_t count = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    const std::vector<std::string_view> fields = words(line);
    if (fields.size() < 4 || fields[3] != "01") continue;
    const std::size_t colon = fields[1].rfind(':');
    if (colon == std::string_view::npos) continue;
    int local_port = -1;
    const std::string_view hex = fields[1].substr(colon + 1);
    const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), local_port, 16);
    if (error == std::errc() && end == hex.data() + hex.size() && local_port == port) ++count;
  }
  return count;
}

std::uint64_t count_established(int port) {
  bool ok = true;
  return count_established_in(read_file("/proc/net/tcp", ok), port) +
         count_established_in(read_file("/proc/net/tcp6", ok), port);
}

}  // namespace ringside::harness
