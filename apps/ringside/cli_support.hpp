// What every subcommand does the same way: parse flags with the project's error convention, and
// take over the shutdown signals before any thread starts.
#pragma once

#include <signal.h>

#include <CLI/CLI.hpp>
#include <optional>

namespace ringside::apps {

// Parses; on --help prints it and returns 0, on a bad flag prints one line naming it and returns
// 2; returns nothing when the command should go on.
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

// Blocks SIGINT and SIGTERM in this thread and every thread it starts afterwards (so only
// sigwait/sigtimedwait see them) and ignores SIGPIPE; returns the blocked set.
sigset_t take_shutdown_signals();

}  // namespace ringside::apps
