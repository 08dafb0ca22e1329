// `ringside compare --new NAME [--like KIND]`: a user's own contestant begun from a template
// (harness/config/scaffold.hpp), written into the user's contestants folder — the first
// --contestants DIR, else ./contestants — with the next commands to run printed.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace ringside::apps {

struct NewFlags {
  std::string name;
  std::string like = "python";
  // For messages: `ringside compare --new ... --like`, or `ringside contestants new ... --from`.
  const char* command = "ringside compare";
  const char* kind_flag = "--like";
};

void add_new_flags(CLI::App& app, NewFlags& flags);
// When --new was given: writes the contestant into `folder` ("" = ./contestants) and returns the
// exit code (0; 2 for a bad name or kind, or a folder already there, after one line on stderr).
// Otherwise nothing, and the command goes on.
std::optional<int> run_new_flags(const NewFlags& flags, const std::string& folder);

}  // namespace ringside::apps
