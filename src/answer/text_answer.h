#pragma once
// Free-text answers: the text after the last answer statement ("Answer: Paris"), else the
// last non-empty line that is not a confidence line, a question or a quoted peer's statement;
// a hedge ("I'm not sure") is no answer. Used by parse_answer for text tasks;
// internal to src/answer (normalize_text, its companion, is public in parley/answer.h).

#include <optional>
#include <string>
#include <string_view>

#include "answer/own_words.h"

namespace parley::answer_scan {

// One way of reading a free-text answer: found, not there, or there but declining ("Answer:
// unclear", "I'm not sure"), which ends the search.
struct TextReading {
  enum Kind { kNone, kFound, kDeclined } kind = kNone;
  std::string answer;  // kFound: as written, without decoration
};
// The last answer statement ("Answer: Paris", "\boxed{...}").
TextReading read_stated_answer(const OwnWords& own);
// The last line that is not a confidence, a question or a quoted peer's statement.
TextReading read_last_line_answer(const OwnWords& own);

// The answer as written, without decoration: "**Paris.** (confidence 90%)" gives "Paris". The
// stated answer, else the last line.
std::optional<std::string> parse_text_answer(std::string_view text);

}  // namespace parley::answer_scan
