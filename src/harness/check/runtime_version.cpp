#include "harness/check/runtime_version.hpp"

#include <sys/wait.h>

#include <exception>
#include <sstream>

#include "harness/config/placeholders.hpp"
#include "harness/process/process.hpp"

namespace ringside::harness {

std::string runtime_version(const Contestant& contestant, double timeout_s) {
  const Manifest& manifest = contestant.manifest;
  if (manifest.version.empty()) return "unknown (no version command)";
  const PlaceholderValues values = fixed_placeholders(contestant);
  ProcessSpec spec;
  for (const std::string& argument : manifest.version) {
    spec.argv.push_back(expand_placeholders(argument, values));
  }
  spec.cwd = contestant.dir.string();
  CommandResult result;
  try {
    result = run_command(spec, timeout_s);
  } catch (const std::exception& error) {
    return std::string("unknown (") + error.what() + ")";
  }
  if (result.timed_out) return "unknown (version command ran over " + format_seconds(timeout_s) + ")";
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) {
      if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
        return "unknown (" + describe_wait_status(result.status) + ": " + line + ")";
      }
      return line;
    }
  }
  return "unknown (version command printed nothing, " + describe_wait_status(result.status) + ")";
}

}  // namespace ringside::harness
