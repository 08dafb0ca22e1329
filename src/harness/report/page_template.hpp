// A page template's slots filled with text: `{{name}}` anywhere in a line is replaced by the
// slot's text, as it is. A slot alone on its line stands for whole lines: its text, given a line
// end when it lacks one, or nothing at all (not even an empty line) when the text is empty. The
// text put in a slot is never searched for slots itself, so "{{title}}" in a description stays
// as it is.
//
//   fill_template("<title>{{title}}</title>\n{{body}}\n</html>\n",
//                 {{"title", "Run"}, {"body", "<p>hi</p>\n"}});
//   // -> "<title>Run</title>\n<p>hi</p>\n</html>\n"
//
// The caller escapes each text for where it lands. A slot of the template that has no text, or a
// text for no slot of the template, is a mistake in the program: std::logic_error naming it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

struct TemplateSlot {
  std::string_view name;
  std::string text;
};

std::string fill_template(std::string_view page, const std::vector<TemplateSlot>& slots);

}  // namespace ringside::harness
