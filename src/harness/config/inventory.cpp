#include "harness/config/inventory.hpp"

#include <array>
#include <map>
#include <stdexcept>

namespace ringside::harness {
namespace {

using Vars = std::map<std::string, std::string>;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    return std::string(value.substr(1, value.size() - 2));
  }
  return std::string(value);
}

// "a=1 b='x y'" -> words split on blanks outside quotes.
std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      word += c;
      if (c == quote) quote = 0;
    } else if (c == ' ' || c == '\t') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      if (c == '"' || c == '\'') quote = c;
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

struct HostLine {
  std::string name;
  Vars vars;
};

// One error for the whole file: "inventory.ini:7: what" (no line once the lines are read).
struct LineFailure {
  const std::string& source;
  std::size_t number = 0;
  [[noreturn]] void operator()(const std::string& what) const {
    throw std::invalid_argument(source + (number > 0 ? ":" + std::to_string(number) : "") + ": " +
                                what);
  }
};

// "name key=value ...": a host line of the group.
HostLine host_line(std::string_view line, const LineFailure& fail) {
  const std::vector<std::string> words = words_of(line);
  HostLine host;
  host.name = words.front();
  if (host.name.find('[') != std::string::npos || host.name.find('=') != std::string::npos) {
    fail("'" + host.name + "': host ranges and bare variables are not read here; one host per line");
  }
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::size_t equals = words[i].find('=');
    if (equals == std::string::npos || equals == 0) {
      fail("'" + words[i] + "' after host " + host.name + " must be key=value");
    }
    host.vars[words[i].substr(0, equals)] = unquote(words[i].substr(equals + 1));
  }
  return host;
}

// A host's address, user and port: its own line's value, else its group's, else [all:vars].
std::vector<LoadHost> resolve_hosts(const std::vector<HostLine>& members,
                                    std::map<std::string, Vars>& group_vars,
                                    const std::string& group) {
  std::vector<LoadHost> hosts;
  for (const HostLine& member : members) {
    auto value = [&](const std::string& key) {
      const std::array<const Vars*, 3> order = {&member.vars, &group_vars[group], &group_vars["all"]};
      for (const Vars* vars : order) {
        auto found = vars->find(key);
        if (found != vars->end()) return found->second;
      }
      return std::string();
    };
    const std::string address = value("ansible_host");
    LoadHost host;
    host.name = member.name;
    host.destination = ssh_destination(value("ansible_user"), address.empty() ? member.name : address);
    host.port = value("ansible_port");
    hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace

std::string ssh_destination(const std::string& user, const std::string& address) {
  return user.empty() ? address : user + "@" + address;
}

std::vector<LoadHost> read_inventory(std::string_view text, const std::string& source,
                                     const std::string& group) {
  std::map<std::string, Vars> group_vars;  // "all" too
  std::vector<HostLine> members;
  std::string section;
  bool seen_group = false;
  LineFailure fail{source};
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++fail.number;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') fail("a section is written [name]");
      section = std::string(trim(line.substr(1, line.size() - 2)));
      if (section == group + ":children") {
        fail("[" + section + "]: groups of groups are not read here; list the hosts in [" + group + "]");
      }
      if (section == group) seen_group = true;
      continue;
    }
    const std::size_t colon = section.find(':');
    if (colon != std::string::npos) {
      if (section.substr(colon) != ":vars") continue;  // another group's :children
      const std::size_t equals = line.find('=');
      if (equals == std::string_view::npos) fail("[" + section + "] holds key=value lines");
      group_vars[section.substr(0, colon)][std::string(trim(line.substr(0, equals)))] =
          unquote(trim(line.substr(equals + 1)));
      continue;
    }
    if (section == group) members.push_back(host_line(line, fail));
  }
  fail.number = 0;
  if (!seen_group) fail("no [" + group + "] group: put the load hosts under [" + group + "], or set group");
  if (members.empty()) fail("[" + group + "] lists no host");
  return resolve_hosts(members, group_vars, group);
}

}  // namespace ringside::harness
