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
// a dash or " but "). Beyond answer statements, a clause the agent does not assert is blanked:
//   - a peer's computation ("Some agents computed 16 × 2 = 32", "a2's 32"), unless agreed with;
//   - a criticised figure or option ("... = 32 ignores the eggs", "Option A is incorrect",
//     "16 × 2 = 32 would ignore the eggs", "which rules out C");
//   - a counterfactual ("If she sold all 16 eggs, she would make $32") and the clauses after it
//     that say why it does not hold ("..., but she eats 3");
//   - an option put aside ("not C", "rather than (C)").
// Clauses here also end before "so", "since", "because", "as", ... so that "The answer is B,
// since A is wrong" keeps "The answer is B"; a parenthetical is a clause of its own. The rules
// are in docs/formats.md, "How replies are read". Internal to src/answer.

#include <string>
#include <string_view>
#include <vector>

#include "answer/scan.h"

namespace parley::answer_scan {

struct OwnWords {
  std::string text;           // the visible reply, with what the agent does not assert blanked
  std::vector<Span> blanked;  // what was blanked, in text order
};

// `choice_words` as for find_answer_statements.
OwnWords own_words(std::string_view text, bool choice_words = false);

}  // namespace parley::answer_scan
