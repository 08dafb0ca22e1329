#include "cli_support.hpp"

#include <cstdio>

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

sigset_t take_shutdown_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

}  // namespace ringside::apps
