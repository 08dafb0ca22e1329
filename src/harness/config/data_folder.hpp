// Where ringside's data is (scenarios/, contestants/, web/), for a binary run from anywhere. The
// first of these that holds scenarios/ is it:
//   1. installed: <the binary's folder>/../share/ringside (cmake --install, the Debian package);
//   2. $RINGSIDE_DATA;
//   3. the source tree the binary was built in (it sits at build/<flavour>/apps/ringside).
// `ringside compare --list` says which one a run uses. Nothing a run writes goes there: builds go
// to the cache folder (BuildCache, contestant working copies), results to the current folder.
//
//   const DataFolder& data = data_folder();      // looked up once
//   if (data.root.empty()) { /* describe(data) says where it looked */ }
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace ringside::harness {

enum class DataOrigin : std::uint8_t { kNone, kInstalled, kEnvironment, kSourceTree };

struct DataFolder {
  std::filesystem::path root;  // empty: none found
  DataOrigin origin = DataOrigin::kNone;
};

// The lookup above for a binary at `executable`, with `environment` as $RINGSIDE_DATA's value
// (nullptr: unset).
[[nodiscard]] DataFolder find_data_folder(const std::filesystem::path& executable,
                                          const char* environment);
// The running binary's, looked up on first use.
[[nodiscard]] const DataFolder& data_folder();

// The running binary (/proc/self/exe), for {ringside} and the lookup; empty if unreadable.
[[nodiscard]] std::filesystem::path self_executable();

// "/usr/share/ringside (installed beside /usr/bin/ringside)", "/opt/x (RINGSIDE_DATA)", or where
// it looked when nothing was found, with what to do.
[[nodiscard]] std::string describe(const DataFolder& data, const std::filesystem::path& executable);

}  // namespace ringside::harness
