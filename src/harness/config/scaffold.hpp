// A user's own contestant, begun from a template: `ringside compare --new NAME --like KIND`
// writes FOLDER/NAME/contestant.toml (every field explained) and the smallest fair server of that
// kind (TCP_NODELAY, a large listen backlog, HTTP/1.1 keep-alive, no log line per request), which
// `ringside compare --validate NAME` then checks.
//
//   const ScaffoldKind* kind = find_scaffold_kind("python");
//   std::vector<fs::path> written = write_scaffold("contestants", "my-app", *kind, "");
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

// A mistake the user can fix (a bad name, a folder already there): one line.
class ScaffoldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScaffoldFile {
  std::string_view name;      // "server.py"
  std::string_view (*text)(); // its template
};

struct ScaffoldKind {
  std::string_view name;      // what --like takes: "python", "node-http"
  std::string_view server;    // one line: "Python's standard library (http.server)"
  std::vector<ScaffoldFile> files;
};

// Every kind, the default ("python") first.
const std::vector<ScaffoldKind>& scaffold_kinds();
// nullptr when there is none of that name.
const ScaffoldKind* find_scaffold_kind(std::string_view name);
// "python, node-http": for messages.
std::string scaffold_kind_names();

// A name a contestant may have (its folder's): 1-64 of a-z 0-9 . _ -, starting with a letter or
// digit. "" when it may; else why not.
std::string contestant_name_problem(std::string_view name);

// A template's text for `name`: @NAME@ and @CONTESTANTS@ (the " --contestants DIR" the commands
// in its comments need, or "") replaced. Pure.
std::string fill_scaffold(std::string_view text, std::string_view name,
                          std::string_view contestants_flag);

// Writes folder/name/ and its files (the folder is created when missing); returns the paths
// written. Throws ScaffoldError when the name is not one a contestant may have or folder/name
// exists already (nothing is overwritten), std::runtime_error when a file cannot be written.
std::vector<std::filesystem::path> write_scaffold(const std::filesystem::path& folder,
                                                  std::string_view name, const ScaffoldKind& kind,
                                                  std::string_view contestants_flag);

}  // namespace ringside::harness
