#pragma once
// Label tasks' answers (AnswerType::kLabel), for parse_answer. Internal to src/answer.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "parley/answer.h"

namespace parley {
class LabelSet;
}

namespace parley::answer_scan {

// The label a reply settles on, first of: its last answer statement ("Final answer: Dengue
// fever"); its last label line ("Diagnosis: HCV", "Bias rating: -1"); its most probable belief
// (`beliefs`, as parse_beliefs read them; the first of equals); its last line, which with a set
// must name one of its labels. A label the set names is returned canonically ("HCV" → "Hepatitis
// C"); any other as its label_key. A stated answer that declines ("Answer: unclear") is none.
std::optional<std::string> parse_label_answer(std::string_view text, const LabelSet* labels,
                                              std::span<const Belief> beliefs);

}  // namespace parley::answer_scan
