// The few closed sets of values a run is described with: the load model of a point, the program
// that generates its load, and what became of a contestant. Parsed once where they enter (a
// scenario file, results.json) and written as names only where they leave (results.json, the
// reports), so a misspelt value is a compile error inside the harness, not a silent default.
//
//   const std::optional<LoadMode> mode = mode_from_name("open");   // nothing when unknown
//   std::string_view text = mode_name(LoadMode::kClosed);          // "closed"
#pragma once

#include <optional>
#include <string_view>

namespace ringside::harness {

// Closed: a fixed number of connections, each sending as fast as it is answered. Open: requests
// at a fixed rate, whether or not the server keeps up.
enum class LoadMode { kClosed, kOpen };

// ringside load (in-process, or on the load hosts), or another tool run as a program.
enum class LoaderKind { kRingside, kWrk, kAb, kH2load, kHey };

// Ran: timed (its points may still carry failures); skipped: could not run here; failed: did not
// pass validation, or broke during the run.
enum class ContestantStatus { kRan, kSkipped, kFailed };

std::string_view mode_name(LoadMode mode);                         // "closed" | "open"
std::optional<LoadMode> mode_from_name(std::string_view name);     // nothing when unknown

std::string_view loader_name(LoaderKind kind);                     // "ringside", "wrk", ...
std::optional<LoaderKind> loader_from_name(std::string_view name);

std::string_view status_name(ContestantStatus status);             // "ran" | "skipped" | "failed"
std::optional<ContestantStatus> status_from_name(std::string_view name);

}  // namespace ringside::harness
