#include "cli_support.hpp"

#include <cstdio>

#include "duration_flag.hpp"
#include "number_flag.hpp"

namespace ringside::apps {

std::optional<int> parse_flags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    const std::string& name = app.get_name();
    std::fprintf(stderr, "%s: %s (see %s --help)\n", name.c_str(), error.what(), name.c_str());
    return 2;
  }
  return std::nullopt;
}

CLI::Validator count_in(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator([=](std::string& text) { return check_count(text, min, max); },
                        "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

CLI::Validator number_in(double min, double max) {
  return CLI::Validator([=](std::string& text) { return check_number(text, min, max); },
                        "NUMBER in [" + format_number(min) + " - " + format_number(max) + "]");
}

CLI::Validator duration_in(double min_s, double max_s) {
  return CLI::Validator(
      [=](std::string& text) { return check_duration(text, min_s, max_s); },
      "DURATION in [" + format_seconds(min_s) + " - " + format_seconds(max_s) + "]");
}

CLI::Validator duration_to_seconds(double min_s, double max_s) {
  return CLI::Validator(
      [=](std::string& text) {
        std::string error = check_duration(text, min_s, max_s);
        if (error.empty()) {
          char seconds[32];
          std::snprintf(seconds, sizeof seconds, "%.17g", *parse_duration_seconds(text));
          text = seconds;
        }
        return error;
      },
      "DURATION in [" + format_seconds(min_s) + " - " + format_seconds(max_s) + "]");
}

CLI::Validator size_to_bytes(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [=](std::string& text) {
        std::string error = check_size(text, min, max);
        if (error.empty()) text = std::to_string(*parse_size(text));
        return error;
      },
      "SIZE in [" + format_size(min) + " - " + format_size(max) + "]");
}

sigset_t take_shutdown_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

}  // namespace ringside::apps
