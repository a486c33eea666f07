#pragma once
// Answer statements: the places where a reply explicitly states its answer, in text order.
// Every typed parser (choice, number, text) reads the payloads from last to first, so a later
// statement overrides an earlier one. Internal to src/answer.
//
//   statement := "answer" marker | "\boxed{" payload "}" | "####" payload
//   marker    := [final] "answer" (":" | "=" | " - " | "is" | "remains" | "would be" | ...) payload
//              | "answer" as the first word of a line, e.g. "Answer (B)"
//              | choice tasks: ("option" | "choice") marker-tail, "I choose" / "I'll go with" ...
//   payload   := rest of the line, or the next non-empty line when that is empty

#include <cstddef>
#include <string_view>
#include <vector>

namespace parley::answer_scan {

struct Statement {
  std::size_t position = 0;    // where the marker starts
  std::string_view payload;    // what the statement says, untrimmed
};

// `choice_words` also accepts "option"/"choice" as markers ("The correct option is B") and
// first-person picks ("I choose option B", "I'll go with C").
std::vector<Statement> find_answer_statements(std::string_view text, bool choice_words = false);

}  // namespace parley::answer_scan
