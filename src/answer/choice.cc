// parse_choice: the option letter a reply settles on, read in the agent's own words (own_words:
// no <think> scratchpad, no quoted peer, no negated statement). Order of evidence, strongest first:
//   1. answer statements, last first ("Answer: B", "the answer is (C)", "\boxed{D}",
//      "The correct option is B", "I'll go with C"); the last one naming a letter or option
//      text decides, and an out-of-range letter there makes the reply unparsed;
//   2. a line that is only a letter ("B", "(B)", "**B.**"), last first;
//   3. the last non-empty line, when it mentions the text of exactly one option, is not an
//      option listing ("B. Jupiter") and does not say the agent does not know.
// A bare letter elsewhere is never taken: "A farmer has..." and "I think..." are words.

#include <optional>
#include <string_view>
#include <vector>

#include "answer/hedges.h"
#include "answer/option_matcher.h"
#include "answer/own_words.h"
#include "answer/confidence_scan.h"
#include "answer/scan.h"
#include "answer/statements.h"
#include "parley/answer.h"

namespace parley {

using answer_scan::OptionPick;

std::optional<std::string> parse_choice(std::string_view reply, const std::vector<std::string>& options) {
  const answer_scan::OwnWords own = answer_scan::own_words(reply, /*choice_words=*/true);
  const std::string_view text = own.text;
  const answer_scan::OptionMatcher matcher(options);
  auto decide = [](OptionPick pick) -> std::optional<std::string> {
    if (pick.kind == OptionPick::Kind::kOption) return option_letter(pick.index);
    return std::nullopt;
  };

  // The declining clauses are found only when a candidate needs them: most replies end in an
  // answer statement that names an option, and then no clause is looked at.
  std::optional<std::vector<answer_scan::Span>> declined;
  auto is_declined = [&](std::string_view part) {
    if (!declined) declined = answer_scan::no_answer_clauses(text, own.sentences, answer_scan::Unanswerable::kDeclines);
    const auto begin = static_cast<std::size_t>(part.data() - text.data());
    return answer_scan::overlaps(*declined, begin, begin + part.size());
  };
  const auto statements = own.statements();
  for (auto it = statements.rbegin(); it != statements.rend(); ++it) {
    const std::string_view payload = answer_scan::before_confidence(it->payload);
    const OptionPick pick = matcher.read_payload(payload);
    if (pick.kind != OptionPick::Kind::kNone) return decide(pick);
    if (is_declined(payload)) return std::nullopt;
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
    if (is_declined(*it)) return std::nullopt;
    return decide(matcher.read_option_text_line(*it));
  }
  return std::nullopt;
}

}  // namespace parley

namespace parley {

std::optional<std::size_t> read_option_label(std::string_view label, const std::vector<std::string>& options) {
  return answer_scan::OptionMatcher(options).read_label(label);
}

}  // namespace parley
