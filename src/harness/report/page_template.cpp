#include "harness/report/page_template.hpp"

#include <stdexcept>

namespace ringside::harness {
namespace {

constexpr std::string_view kOpen = "{{";
constexpr std::string_view kClose = "}}";

std::size_t slot_index(const std::vector<TemplateSlot>& slots, std::string_view name) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].name == name) return i;
  }
  throw std::logic_error("page template: no text for its slot {{" + std::string(name) + "}}");
}

// The slot from `open` to `end` fills its line: the line begins there and ends right after.
bool alone_on_its_line(std::string_view page, std::size_t open, std::size_t end) {
  return (open == 0 || page[open - 1] == '\n') && end < page.size() && page[end] == '\n';
}

void check_every_slot_used(const std::vector<TemplateSlot>& slots, const std::vector<bool>& used) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!used[i]) {
      throw std::logic_error("page template: it has no slot {{" + std::string(slots[i].name) +
                             "}} for the text given");
    }
  }
}

}  // namespace

std::string fill_template(std::string_view page, const std::vector<TemplateSlot>& slots) {
  std::vector<bool> used(slots.size(), false);
  std::string out;
  std::size_t at = 0;
  for (std::size_t open = page.find(kOpen); open != std::string_view::npos;
       open = page.find(kOpen, at)) {
    const std::size_t close = page.find(kClose, open + kOpen.size());
    if (close == std::string_view::npos) {
      throw std::logic_error("page template: a \"{{\" with no \"}}\" after it");
    }
    const std::size_t index =
        slot_index(slots, page.substr(open + kOpen.size(), close - open - kOpen.size()));
    used[index] = true;
    const std::string& text = slots[index].text;
    out += page.substr(at, open - at);
    out += text;
    at = close + kClose.size();
    if (alone_on_its_line(page, open, at)) {
      ++at;  // the slot's own line end: the text brings its own, or is no line at all
      if (!text.empty() && text.back() != '\n') out += '\n';
    }
  }
  out += page.substr(at);
  check_every_slot_used(slots, used);
  return out;
}

}  // namespace ringside::harness
