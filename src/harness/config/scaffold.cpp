#include "harness/config/scaffold.hpp"

#include <fstream>

#include "harness/config/scaffold_templates.hpp"

namespace ringside::harness {

namespace fs = std::filesystem;

const std::vector<ScaffoldKind>& scaffold_kinds() {
  static const std::vector<ScaffoldKind> kinds = {
      {"python", "Python's standard library (http.server)",
       {{"contestant.toml", scaffold_python_manifest}, {"server.py", scaffold_python_server}}},
      {"node-http", "node:http, no framework",
       {{"contestant.toml", scaffold_node_manifest}, {"server.js", scaffold_node_server}}},
  };
  return kinds;
}

const ScaffoldKind* find_scaffold_kind(std::string_view name) {
  for (const ScaffoldKind& kind : scaffold_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

std::string scaffold_kind_names() {
  std::string names;
  for (const ScaffoldKind& kind : scaffold_kinds()) {
    names += (names.empty() ? "" : ", ") + std::string(kind.name);
  }
  return names;
}

std::string contestant_name_problem(std::string_view name) {
  if (name.empty() || name.size() > 64) return "must be 1 to 64 characters";
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(name.front())) return "must start with a lower-case letter or a digit";
  for (char c : name) {
    if (!lower_or_digit(c) && c != '-' && c != '_' && c != '.') {
      return "may hold only a-z, 0-9, '-', '_' and '.'";
    }
  }
  return "";
}

std::string fill_scaffold(std::string_view text, std::string_view name,
                          std::string_view contestants_flag) {
  std::string filled;
  filled.reserve(text.size());
  while (!text.empty()) {
    const std::size_t at = text.find('@');
    filled.append(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at);
    if (text.starts_with("@NAME@")) {
      filled.append(name);
      text.remove_prefix(6);
    } else if (text.starts_with("@CONTESTANTS@")) {
      filled.append(contestants_flag);
      text.remove_prefix(13);
    } else {
      filled.push_back('@');
      text.remove_prefix(1);
    }
  }
  return filled;
}

std::vector<fs::path> write_scaffold(const fs::path& folder, std::string_view name,
                                     const ScaffoldKind& kind, std::string_view contestants_flag) {
  if (std::string problem = contestant_name_problem(name); !problem.empty()) {
    throw ScaffoldError("--new: '" + std::string(name) + "' " + problem);
  }
  const fs::path target = folder / std::string(name);
  std::error_code error;
  if (fs::exists(target, error)) {
    throw ScaffoldError("--new: " + target.string() +
                        " exists already; pick another name or remove that folder");
  }
  fs::create_directories(target, error);
  if (error) throw std::runtime_error("cannot create " + target.string() + ": " + error.message());
  std::vector<fs::path> written;
  for (const ScaffoldFile& file : kind.files) {
    const fs::path path = target / std::string(file.name);
    std::ofstream out(path);
    out << fill_scaffold(file.text(), name, contestants_flag);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path.string());
    written.push_back(path);
  }
  return written;
}

}  // namespace ringside::harness
