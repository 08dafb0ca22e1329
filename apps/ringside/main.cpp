// `ringside`: one binary, one subcommand per tool.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "commands.hpp"
#include "version.hpp"

namespace {

constexpr const char* kUsage =
    "usage: ringside <command> [options]\n"
    "\n"
    "commands:\n"
    "  serve     run the HTTP/1.1 server (ringside serve --help)\n"
    "  load      load-test an HTTP server (ringside load --help)\n"
    "  merge     merge the results of several load generators (ringside merge --help)\n"
    "  db        throwaway PostgreSQL and schema seeding (ringside db --help)\n"
    "  compare   compare servers under load: a verdict and reports (ringside compare --help)\n"
    "  contestants  install what contestants need, or begin your own (ringside contestants --help)\n"
    "\n";

void print_usage(std::FILE* out) {
  std::fputs(kUsage, out);
  std::fprintf(out, "ringside %s\n", ringside::apps::kVersion);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage(stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("ringside %s\n", ringside::apps::kVersion);
    return 0;
  }
  if (command == "serve") return ringside::apps::run_serve(argc - 1, argv + 1);
  if (command == "load") return ringside::apps::run_load(argc - 1, argv + 1);
  if (command == "merge") return ringside::apps::run_merge(argc - 1, argv + 1);
  if (command == "db") return ringside::apps::run_db(argc - 1, argv + 1);
  if (command == "compare") return ringside::apps::run_compare(argc - 1, argv + 1);
  if (command == "contestants") return ringside::apps::run_contestants(argc - 1, argv + 1);
  std::fprintf(stderr, "ringside: unknown command '%s' (try: ringside --help)\n", argv[1]);
  return 2;
}
