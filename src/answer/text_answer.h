#pragma once
// Free-text answers: the text after the last answer statement ("Answer: Paris"), else the
// last non-empty line that is not a confidence line, a question or a quoted peer's statement;
// a hedge ("I'm not sure") is no answer. Used by parse_answer for text tasks;
// internal to src/answer (normalize_text, its companion, is public in parley/answer.h).

#include <optional>
#include <string>
#include <string_view>

namespace parley::answer_scan {

// The answer as written, without decoration: "**Paris.** (confidence 90%)" gives "Paris".
std::optional<std::string> parse_text_answer(std::string_view text);

}  // namespace parley::answer_scan
