#include "harness/report/page_template.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ringside::harness {
namespace {

TEST(PageTemplate, ASlotInALineTakesItsTextAsItIs) {
  EXPECT_EQ(fill_template("<title>{{title}}</title>\n", {{"title", "a run"}}),
            "<title>a run</title>\n");
  EXPECT_EQ(fill_template("<b>{{x}}</b><i>{{x}}</i>", {{"x", "1"}}), "<b>1</b><i>1</i>");
  EXPECT_EQ(fill_template("[{{x}}]\n", {{"x", ""}}), "[]\n");
}

TEST(PageTemplate, ASlotAloneOnItsLineStandsForWholeLines) {
  const std::string_view page = "<style>\n{{css}}\n</style>\n";
  EXPECT_EQ(fill_template(page, {{"css", "a {}\nb {}\n"}}), "<style>\na {}\nb {}\n</style>\n");
  EXPECT_EQ(fill_template(page, {{"css", "a {}"}}), "<style>\na {}\n</style>\n")
      << "a text without its last line end gets one";
  EXPECT_EQ(fill_template(page, {{"css", ""}}), "<style>\n</style>\n") << "empty: no line at all";
  EXPECT_EQ(fill_template("{{a}}\n{{b}}\nend\n", {{"a", "1\n"}, {"b", ""}}), "1\nend\n");
}

TEST(PageTemplate, TheTextIsNeverSearchedForSlots) {
  EXPECT_EQ(
      fill_template("<h1>{{title}}</h1>{{body}}", {{"title", "{{body}}"}, {"body", "{{title}}"}}),
      "<h1>{{body}}</h1>{{title}}");
}

TEST(PageTemplate, SlotsAndTextsThatDoNotMatchAreMistakes) {
  EXPECT_THROW(fill_template("{{title}}", {}), std::logic_error);
  EXPECT_THROW(fill_template("no slot", {{"title", "x"}}), std::logic_error);
  EXPECT_THROW(fill_template("{{title", {{"title", "x"}}), std::logic_error);
  try {
    fill_template("<p>{{missing}}</p>", {});
    FAIL() << "a slot with no text";
  } catch (const std::logic_error& error) {
    EXPECT_NE(std::string(error.what()).find("{{missing}}"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ringside::harness
