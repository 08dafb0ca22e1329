// What every subcommand does the same way: parse flags with the project's error convention,
// check values against documented ranges, and take over the shutdown signals before any thread
// starts.
#pragma once

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>

namespace ringside::apps {

// Parses; on --help prints it and returns 0, on a bad flag prints one line naming it and returns
// 2; returns nothing when the command should go on.
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

// Validators for add_option(...)->check(...): each refuses a value outside [min, max] with one
// line naming the range (number_flag.hpp, duration_flag.hpp); CLI11 prefixes the flag's name.
CLI::Validator count_in(std::uint64_t min, std::uint64_t max);
CLI::Validator number_in(double min, double max);
CLI::Validator duration_in(double min_s, double max_s);

// For ->transform(...): also rewrite the text as the plain number the option's variable takes,
// so "500ms" lands in a double of seconds as 0.5 and "1m" in a byte count as 1048576.
CLI::Validator duration_to_seconds(double min_s, double max_s);
CLI::Validator size_to_bytes(std::uint64_t min, std::uint64_t max);

// Blocks SIGINT, SIGTERM and SIGHUP in this thread and every thread it starts afterwards (so
// only sigwait/sigtimedwait see them: a closed terminal or `kill -HUP` stops gracefully instead
// of killing the process) and ignores SIGPIPE; returns the blocked set.
sigset_t take_shutdown_signals();

}  // namespace ringside::apps
