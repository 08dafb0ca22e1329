// Where a run keeps what it builds and installs, outside the data folder (which may be an install
// a user cannot write): contestant builds' stamps (builds/), and, when ringside runs from an
// install or $RINGSIDE_DATA, a working copy of the bundled contestants (contestants/) where
// `npm ci`, cargo and cc write their output. The first of these is it:
//   1. $RINGSIDE_CACHE (`--cache DIR` sets it);
//   2. $XDG_CACHE_HOME/ringside;
//   3. ~/.cache/ringside;
//   4. <temp>/ringside-cache.
//
//   fs::path copy = cache_folder() / "contestants";
//   mirror_tree(data_folder().root / "contestants", copy);   // files written when they differ
#pragma once

#include <cstddef>
#include <filesystem>

namespace ringside::harness {

[[nodiscard]] std::filesystem::path cache_folder();

// Makes every file under `from` exist under `to` with the same bytes and mode: written only when
// missing or different, so a second call writes nothing. Files only under `to` stay (what a build
// or `npm ci` made there). Returns how many files it wrote; throws std::runtime_error naming the
// path it could not read or write.
std::size_t mirror_tree(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace ringside::harness
