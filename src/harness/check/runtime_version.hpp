// A contestant's runtime version, as its manifest's `version` command prints it ("v20.19.2").
//
//   std::string v = runtime_version(contestant);   // or "unknown (why)"
#pragma once

#include <string>

#include "harness/config/contestant.hpp"

namespace ringside::harness {

// Runs the manifest's `version` argv in the folder (bounded by timeout_s) and returns the first
// non-empty line it prints (stdout or stderr); "unknown (why)" when it has none or fails.
std::string runtime_version(const Contestant& contestant, double timeout_s = 10);

}  // namespace ringside::harness
