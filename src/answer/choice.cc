// parse_choice: the option letter a reply settles on. Order of evidence, strongest first:
//   1. answer statements, last first ("Answer: B", "the answer is (C)", "\boxed{D}",
//      "The correct option is B", "I'll go with C"); the last one naming a letter or option
//      text decides, and an out-of-range letter there makes the reply unparsed;
//   2. a line that is only a letter ("B", "(B)", "**B.**"), last first;
//   3. the last non-empty line, when it mentions the text of exactly one option and is not an
//      option listing ("B. Jupiter").
// A bare letter elsewhere is never taken: "A farmer has..." and "I think..." are words.

#include <string_view>
#include <vector>

#include "answer/option_matcher.h"
#include "answer/scan.h"
#include "answer/statements.h"
#include "parley/answer.h"

namespace parley {

using answer_scan::OptionPick;

std::optional<std::string> parse_choice(std::string_view text, const std::vector<std::string>& options) {
  const answer_scan::OptionMatcher matcher(options);
  auto decide = [](OptionPick pick) -> std::optional<std::string> {
    if (pick.kind == OptionPick::Kind::kOption) return option_letter(pick.index);
    return std::nullopt;
  };

  const auto statements = answer_scan::find_answer_statements(text, /*choice_words=*/true);
  for (auto it = statements.rbegin(); it != statements.rend(); ++it) {
    const OptionPick pick = matcher.read_payload(answer_scan::before_confidence(it->payload));
    if (pick.kind != OptionPick::Kind::kNone) return decide(pick);
  }

  std::vector<std::string_view> lines;
  for (answer_scan::LineCursor cursor(text); cursor.next();) {
    if (!answer_scan::trim_markup(cursor.line()).empty()) lines.push_back(cursor.line());
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const OptionPick pick = matcher.read_letter_line(*it);
    if (pick.kind != OptionPick::Kind::kNone) return decide(pick);
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (answer_scan::is_confidence_line(*it)) continue;
    return decide(matcher.read_option_text_line(*it));
  }
  return std::nullopt;
}

}  // namespace parley
