// Reads the fields of one TOML table (toml++) for the harness's two file formats, contestant
// manifests and scenarios, turning every problem into one line that names the file, the line and
// the field: "scenarios/x.toml:12: field 'workload[2].rate': must be ...". `Error` is the
// exception type thrown (ManifestError, ScenarioError); a `prefix` names the table the field is in.
//
//   const TomlFields<ScenarioError> fields(table, "scenarios/x.toml");
//   std::optional<std::string> name = fields.string("name");       // absent: nullopt
//   fields.string("start", /*required=*/true);                       // absent: throws
//   fields.fail("rate", "must be positive");                         // at the field's line
//
// Included only by the harness's .cpp files (toml++ is header-only and private to it).
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

template <typename Error>
class TomlFields {
 public:
  TomlFields(const toml::table& table, const std::string& source, std::string prefix = {})
      : table_(table), source_(source), prefix_(std::move(prefix)) {}

  // At `at`'s line, else the field's, else (a missing field) the table's.
  [[noreturn]] void fail(std::string_view field, const std::string& what,
                         const toml::node* at = nullptr) const {
    if (at == nullptr) at = table_.get(field);
    const auto line = at != nullptr ? at->source().begin.line : table_.source().begin.line;
    std::string message = source_;
    if (line > 0) message += ":" + std::to_string(line);
    message += ": field '" + prefix_ + std::string(field) + "': " + what;
    throw Error(message);
  }

  const toml::node* find(std::string_view field, bool required = false) const {
    const toml::node* node = table_.get(field);
    if (node == nullptr && required) fail(field, "missing (it is required)");
    return node;
  }

  template <typename Names>
  void refuse_unknown(const Names& known) const {
    for (const auto& [key, node] : table_) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string list;
      for (std::string_view name : known) {
        if (name == "workloads") continue;  // scenario: accepted only to say how it is written
        list += (list.empty() ? "" : ", ") + std::string(name);
      }
      fail(key.str(), "unknown field (known: " + list + ")", &node);
    }
  }

  std::optional<std::string> string(std::string_view field, bool required = false) const {
    const toml::node* node = find(field, required);
    if (node == nullptr) return std::nullopt;
    if (!node->is_string()) fail(field, "must be a string, not " + type_of(*node), node);
    return node->as_string()->get();
  }

  std::optional<bool> boolean(std::string_view field) const {
    const toml::node* node = find(field);
    if (node == nullptr) return std::nullopt;
    if (!node->is_boolean()) fail(field, "must be true or false, not " + type_of(*node), node);
    return node->as_boolean()->get();
  }

  std::optional<std::int64_t> integer(std::string_view field, std::int64_t min,
                                      std::int64_t max) const {
    const toml::node* node = find(field);
    if (node == nullptr) return std::nullopt;
    if (!node->is_integer()) fail(field, "must be an integer, not " + type_of(*node), node);
    const std::int64_t value = node->as_integer()->get();
    if (value < min || value > max) {
      fail(field, "must be from " + std::to_string(min) + " to " + std::to_string(max), node);
    }
    return value;
  }

  // An integer or a float in [min, max]; `allowed` says so in words for the message.
  std::optional<double> number(std::string_view field, double min, double max,
                               const std::string& allowed) const {
    const toml::node* node = find(field);
    if (node == nullptr) return std::nullopt;
    double value = 0;
    if (node->is_integer()) {
      value = static_cast<double>(node->as_integer()->get());
    } else if (node->is_floating_point()) {
      value = node->as_floating_point()->get();
    } else {
      fail(field, "must be a number " + allowed + ", not " + type_of(*node), node);
    }
    if (!(value >= min && value <= max)) fail(field, "must be " + allowed, node);
    return value;
  }

  std::optional<std::vector<std::string>> strings(std::string_view field,
                                                  bool required = false) const {
    const toml::node* node = find(field, required);
    if (node == nullptr) return std::nullopt;
    const toml::array* array = node->as_array();
    if (array == nullptr) fail(field, "must be an array of strings, not " + type_of(*node), node);
    std::vector<std::string> values;
    for (const toml::node& item : *array) {
      if (!item.is_string()) fail(field, "must be an array of strings; it holds " + type_of(item), &item);
      values.push_back(item.as_string()->get());
    }
    return values;
  }

  const toml::node* node(std::string_view field) const { return table_.get(field); }
  const toml::table& table() const { return table_; }
  const std::string& source() const { return source_; }

  static std::string type_of(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::array: return "an array";
      case toml::node_type::table: return "a table";
      default: return "a date or time";
    }
  }

 private:
  const toml::table& table_;
  const std::string& source_;
  std::string prefix_;
};

}  // namespace ringside::harness
