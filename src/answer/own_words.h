#pragma once
// What a reply asserts as the agent's own answer. Debaters quote each other: "Agent a2 said the
// answer is C. I disagree; ..." states a2's answer, not this agent's. own_words blanks, in a copy
// of the visible reply (answer_scan::visible_reply), every answer statement the agent does not
// make its own, so that no parser reads it:
//   - a Markdown block quote ("> The answer is A.");
//   - a statement attributed to someone else: after a possessive ("Agent a1's answer is A",
//     "your answer is C"), after "according to X" (not "according to my ..."), or after a
//     reporting verb whose subject is not "I"/"we" ("a2 said/claims/argues/suggests/concluded
//     that the answer is C", "You said ...") — unless the agent then agrees ("..., and I agree",
//     "I agree.") in the same or the next sentence;
//   - a negated statement ("The answer is not C").
// A statement is blanked from its marker to the end of its clause (sentence end, ';', ", ",
// a dash or " but "). Internal to src/answer.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "answer/scan.h"
#include "answer/statements.h"

namespace parley::answer_scan {

struct OwnWords {
  std::string text;           // the visible reply, with what the agent does not assert blanked
  std::vector<Span> blanked;  // what was blanked, in text order
  // sentence_spans(text), and find_answer_statements(text, choice_words) as (marker position,
  // payload span) pairs: own_words' own reading of the reply when it blanked nothing, read
  // again from `text` otherwise, so that callers need not scan the text again.
  std::vector<Span> sentences;
  std::vector<std::pair<std::size_t, Span>> statement_spans;

  // The statements of statement_spans, with payloads viewing `text`.
  std::vector<Statement> statements() const;
};

// `choice_words` as for find_answer_statements.
OwnWords own_words(std::string_view text, bool choice_words = false);

}  // namespace parley::answer_scan
