// Reads the load hosts of a scenario's `[load] inventory`: an Ansible-style INI inventory, the
// same file deploy/ansible/load.yml takes (deploy/ansible/inventory.example.ini). Only what that
// example uses: `[group]` sections of host lines (`name key=value ...`), `[group:vars]` and
// `[all:vars]`, comments with `#` or `;`. A host's address is its `ansible_host` (else its name),
// its user `ansible_user`, its port `ansible_port`; a host line's own value wins over its group's,
// which wins over `[all:vars]`. Anything else of Ansible's (ranges, `:children`, YAML) is refused
// by name rather than read wrongly.
//
//   std::vector<LoadHost> hosts = read_inventory(text, "inventory.ini", "generators");
//   // throws std::invalid_argument: "inventory.ini:7: ..." (one line, what to change)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/config/load_host.hpp"

namespace ringside::harness {

std::vector<LoadHost> read_inventory(std::string_view text, const std::string& source,
                                     const std::string& group);

// "user@host" or "host" as ssh takes it (an IPv6 address without brackets).
std::string ssh_destination(const std::string& user, const std::string& address);

}  // namespace ringside::harness
