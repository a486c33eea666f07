#pragma once
// Replies that decline to answer. A clause that says the agent does not know ("I'm not sure",
// "I don't have enough information", "I cannot determine", "I can't decide between"), or that
// leaves a choice open between answers ("It's either B or C"), holds no answer, so the answer
// parsers never take a value from it: a reply whose only candidate answers are in such clauses is
// unparsed (and re-asked) rather than guessed. A clause that says the question has no answer
// ("it cannot be determined", "there is not enough information") declines a number or an option
// too, but for a free-text task it is an answer the agent commits to (the gold of some
// questions), so those callers leave it out. Internal to src/answer.
//
// A clause ends where a sentence does (answer_scan::sentence_spans), at ';' or a dash, and before
// "but", "though", "although", "however" and "yet": in "I'm not sure, but I think it is 18" the
// second clause answers.

#include <string_view>
#include <vector>

#include "answer/scan.h"

namespace parley::answer_scan {

enum class Unanswerable {
  kDeclines,  // "it cannot be determined" declines to give a number or an option
  kIsAnAnswer,  // ... but is a free-text answer
};

// The clauses of `text` that decline to answer, in text order; `sentences` when given are
// sentence_spans(text), already at hand.
std::vector<Span> no_answer_clauses(std::string_view text, Unanswerable claims);
std::vector<Span> no_answer_clauses(std::string_view text, const std::vector<Span>& sentences, Unanswerable claims);

// True when some clause of `text` declines to answer.
bool declares_no_answer(std::string_view text, Unanswerable claims);

// True when one of `clauses` (from no_answer_clauses) overlaps [begin, end).
bool overlaps(const std::vector<Span>& clauses, std::size_t begin, std::size_t end);

// A stance that names no answer: "I disagree.", "I agree with that.", "I concur".
bool is_bare_stance(std::string_view text);

}  // namespace parley::answer_scan
