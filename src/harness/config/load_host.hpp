// One machine that runs `ringside load` for the harness: what a scenario's `[load] hosts` and an
// inventory (inventory.hpp) both give.
#pragma once

#include <string>

namespace ringside::harness {

// One machine that runs `ringside load` for the harness, reached with ssh.
struct LoadHost {
  std::string name;         // tags its results (--tag) and names it in the report
  std::string destination;  // ssh's: "host" or "user@host"
  std::string port;         // "" : ssh's default (or its config's)
};

}  // namespace ringside::harness
