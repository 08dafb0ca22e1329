// TEMPORARY stand-in so the run engine links before the external-loader branch lands: the
// integrator replaces this file with that branch's implementation. Every external loader says
// it is not built yet; the in-process loader (loader = "ringside") does not come here.
#include "harness/external_loader.hpp"

#include <array>

namespace ringside::harness {
namespace {

constexpr std::array<std::pair<LoaderKind, std::string_view>, 5> kNames = {{
    {LoaderKind::kRingside, "ringside"},
    {LoaderKind::kWrk, "wrk"},
    {LoaderKind::kAb, "ab"},
    {LoaderKind::kH2load, "h2load"},
    {LoaderKind::kHey, "hey"},
}};

constexpr const char* kNotBuilt = "external loaders are not built into this binary yet";

}  // namespace

std::string_view loader_name(LoaderKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<LoaderKind> loader_from_name(std::string_view name) {
  for (const auto& [kind, known] : kNames) {
    if (known == name) return kind;
  }
  return std::nullopt;
}

std::string_view loader_program(LoaderKind kind) {
  return kind == LoaderKind::kRingside ? "" : loader_name(kind);
}

std::vector<std::string> loader_argv(const LoaderSpec&, std::string& error) {
  error = kNotBuilt;
  return {};
}

RoundFigures parse_wrk_output(std::string_view, std::string& error) { error = kNotBuilt; return {}; }
RoundFigures parse_ab_output(std::string_view, std::string& error) { error = kNotBuilt; return {}; }
RoundFigures parse_h2load_output(std::string_view, std::string& error) { error = kNotBuilt; return {}; }
RoundFigures parse_hey_output(std::string_view, std::string& error) { error = kNotBuilt; return {}; }

LoaderOutcome run_external_loader(const LoaderSpec&) {
  LoaderOutcome outcome;
  outcome.error = kNotBuilt;
  return outcome;
}

}  // namespace ringside::harness
