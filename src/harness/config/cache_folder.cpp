#include "harness/config/cache_folder.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ringside::harness {
namespace fs = std::filesystem;
namespace {

fs::path absolute_from_environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return {};
  return fs::absolute(value).lexically_normal();
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (!fs::is_regular_file(b, error)) return false;
  if (fs::file_size(a, error) != fs::file_size(b, error) || error) return false;
  return read_all(a) == read_all(b);
}

}  // namespace

fs::path cache_folder() {
  if (fs::path given = absolute_from_environment("RINGSIDE_CACHE"); !given.empty()) return given;
  if (fs::path xdg = absolute_from_environment("XDG_CACHE_HOME"); !xdg.empty()) {
    return xdg / "ringside";
  }
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return fs::path(home) / ".cache" / "ringside";
  return fs::temp_directory_path() / "ringside-cache";
}

std::size_t mirror_tree(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::create_directories(to, error);
  if (error) throw std::runtime_error("cannot create " + to.string() + ": " + error.message());
  std::size_t written = 0;
  fs::recursive_directory_iterator walk(from, error);
  if (error) throw std::runtime_error("cannot read " + from.string() + ": " + error.message());
  for (const fs::directory_entry& entry : walk) {
    const fs::path target = to / fs::relative(entry.path(), from);
    if (entry.is_directory()) {
      fs::create_directories(target, error);
    } else if (entry.is_regular_file() && !same_bytes(entry.path(), target)) {
      fs::copy_file(entry.path(), target, fs::copy_options::overwrite_existing, error);
      if (!error) fs::permissions(target, entry.status().permissions(), error);
      ++written;
    }
    if (error) throw std::runtime_error("cannot write " + target.string() + ": " + error.message());
  }
  return written;
}

}  // namespace ringside::harness
