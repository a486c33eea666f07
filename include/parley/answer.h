#pragma once
// Answer parsing: turns model text into a typed Answer for a Task, and decides whether an
// answer matches the gold. Pure functions, no state; safe from any thread.
// An unparsable reply is an Answer with no value ("unparsed"), never an exception.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/labels.h"
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

// Parses the final answer, the self-reported confidence and any belief distribution. Only the
// agent's own words count: not a <think> scratchpad, a quoted peer's answer or a negated
// statement; a reply that hedges or declines is unparsed rather than guessed. The rules are in
// docs/formats.md, "How replies are read".
Answer parse_answer(std::string_view text, const Task& task);

// Choice: "B", "(B)", "Answer: B", "the answer is (B) Paris", or the text of an option.
// Returns the option letter. Later statements win over earlier ones.
std::optional<std::string> parse_choice(std::string_view text, const std::vector<std::string>& options);

// Number: "#### 42", "\boxed{2^{10}}", "Answer: 1,234.5", "3/4", "1.5k", "3.2 \times 10^{5}",
// else the last sentence holding a number; never a confidence ("I'm 90% sure").
std::optional<double> parse_number(std::string_view text);

// Canonical string for a number: integers without decimals ("42"), otherwise up to 6
// significant decimals without trailing zeros ("0.75").
std::string canonical_number(double value);

// A numeric forecast (protocols paper §2.3): the number on the last "Impact:" line if present
// ("**Impact:** 0%", "Impact on core CPI: -0.1%", U+2212 also taken as a minus), otherwise the
// first signed percentage ("+0.3%", "-1.2 %"). Percent values are returned as written (0.3 for
// "+0.3%"). The answer of a forecast task.
std::optional<double> parse_forecast(std::string_view text);

// "Confidence: 80%", "confidence 0.8", "Certainty: high (9/10)", "I am 90% confident", "I'm 90%
// sure". The last statement wins. Returns a value in [0, 1].
std::optional<double> parse_confidence(std::string_view text);

// "Dengue 60%, Chikungunya 25%" style distributions (percentages or probabilities).
std::vector<Belief> parse_beliefs(std::string_view text);

// The option a written label names, as belief labels are read: "B", "(B) Jupiter", "Option B",
// "**B**" or an option's text; nullopt for none or a letter beyond the options.
std::optional<std::size_t> read_option_label(std::string_view label, const std::vector<std::string>& options);

// The label of `labels` a written name stands for, read as a label task's stated answer is
// (docs/formats.md, "How replies are read"): "HCV", "Hepatitis C (HCV)", "Likely dengue fever".
std::optional<std::size_t> read_label_name(std::string_view written, const LabelSet& labels);

// Lower-case, strip punctuation and articles, collapse whitespace.
std::string normalize_text(std::string_view text);

// Compares a canonical answer with the gold: choice by letter, numbers with a relative
// tolerance of 1e-6 (absolute 1e-9 near zero), text after normalisation.
bool answers_match(const Task& task, std::string_view answer);

}  // namespace parley
