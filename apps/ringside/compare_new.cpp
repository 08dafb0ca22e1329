#include "compare_new.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>

#include "harness/config/scaffold.hpp"

namespace ringside::apps {
namespace {


// The flag the printed commands need to find the folder: none for ./contestants, which is
// searched by default.
std::string contestants_flag(const std::string& folder) {
  if (folder.empty()) return "";
  std::error_code error;
  const auto given = std::filesystem::weakly_canonical(folder, error);
  const auto here = std::filesystem::weakly_canonical("contestants", error);
  return given == here ? "" : " --contestants " + folder;
}

}  // namespace

void add_new_flags(CLI::App& app, NewFlags& flags) {
  app.add_option("--new", flags.name,
                 "Begin a contestant of your own: write NAME/contestant.toml (every field "
                 "explained) and a minimal fair server into ./contestants (or --contestants DIR), "
                 "then say what to run next");
  app.add_option("--like", flags.like,
                 "With --new: the server to begin from (" + harness::scaffold_kind_names() +
                     "; default python)");
}

std::optional<int> run_new_flags(const NewFlags& flags, const std::string& folder) {
  if (flags.name.empty()) return std::nullopt;
  const harness::ScaffoldKind* kind = harness::find_scaffold_kind(flags.like);
  if (kind == nullptr) {
    std::fprintf(stderr, "%s: %s '%s' is not a kind of server it can write (known: %s)\n",
                 flags.command, flags.kind_flag, flags.like.c_str(),
                 harness::scaffold_kind_names().c_str());
    return 2;
  }
  const std::string target = folder.empty() ? "contestants" : folder;
  const std::string flag = contestants_flag(folder);
  try {
    const auto written = harness::write_scaffold(target, flags.name, *kind, flag);
    std::printf("wrote %s/%s/: %s (every field explained) and %s (%s; routes / and /json)\n",
                target.c_str(), flags.name.c_str(), written.front().filename().c_str(),
                written.back().filename().c_str(), std::string(kind->server).c_str());
    std::printf("next:  ringside compare --validate %s%s\n", flags.name.c_str(), flag.c_str());
    std::printf("then:  ringside compare --quick --only ringside,%s%s   (a first look; drop "
                "--quick for numbers to trust)\n",
                flags.name.c_str(), flag.c_str());
    return 0;
  } catch (const harness::ScaffoldError& error) {
    std::fprintf(stderr, "%s: %s\n", flags.command, error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", flags.command, error.what());
    return 1;
  }
}

}  // namespace ringside::apps
