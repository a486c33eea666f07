#pragma once
// Answer parsing: turns model text into a typed Answer for a Task, and decides whether an
// answer matches the gold. Pure functions, no state; safe from any thread.
// An unparsable reply is an Answer with no value ("unparsed"), never an exception.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/task.h"

namespace parley {

struct Belief {
  std::string label;   // as written ("Dengue") or canonical (option letter) when it names an option
  double probability;  // in [0, 1]
};

struct Answer {
  std::optional<std::string> value;  // canonical form, same representation as Task::answer
  std::optional<double> confidence;  // self-reported, in [0, 1]
  std::vector<Belief> beliefs;       // belief distribution, when the text states one
  bool parsed() const { return value.has_value(); }
};

// Parses the final answer, the self-reported confidence and any belief distribution.
Answer parse_answer(std::string_view text, const Task& task);

// Choice: "B", "(B)", "Answer: B", "the answer is B", or the text of an option.
// Returns the option letter. Later statements win over earlier ones.
std::optional<std::string> parse_choice(std::string_view text, const std::vector<std::string>& options);

// Number: "#### 42", "\boxed{42}", "Answer: 1,234.5", "3/4", else the last number in the text.
std::optional<double> parse_number(std::string_view text);

// Canonical string for a number: integers without decimals ("42"), otherwise up to 6
// significant decimals without trailing zeros ("0.75").
std::string canonical_number(double value);

// A numeric forecast (protocols paper §2.3): the number after an "Impact:" label if present,
// otherwise the first signed percentage ("+0.3%", "-1.2 %"). Percent values are returned as
// written (0.3 for "+0.3%"). The answer of a forecast task.
std::optional<double> parse_forecast(std::string_view text);

// "Confidence: 80%", "confidence 0.8", "I am 90% confident". Returns a value in [0, 1].
std::optional<double> parse_confidence(std::string_view text);

// "Dengue 60%, Chikungunya 25%" style distributions (percentages or probabilities).
std::vector<Belief> parse_beliefs(std::string_view text);

// Lower-case, strip punctuation and articles, collapse whitespace.
std::string normalize_text(std::string_view text);

// Compares a canonical answer with the gold: choice by letter, numbers with a relative
// tolerance of 1e-6 (absolute 1e-9 near zero), text after normalisation.
bool answers_match(const Task& task, std::string_view answer);

}  // namespace parley
