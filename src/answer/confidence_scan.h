#pragma once
// Confidence statements inside a reply: where the agent reports how sure it is ("Confidence:
// 80%", "I'm 90% sure"). parse_confidence reads the last one; the answer parsers use the same
// statements to know which numbers and lines are confidences, never answers. Internal to
// src/answer.

#include <string_view>
#include <vector>

#include "answer/scan.h"

namespace parley::answer_scan {

struct ConfidenceStatement {
  Span span;     // the label through the number ("Confidence: 80%"), or the number through its
                 // adjective ("90% sure")
  double value;  // in [0, 1]
};

// Every valid confidence statement of `text`, in text order.
std::vector<ConfidenceStatement> confidence_statements(std::string_view text);

// A line that reports a confidence and nothing else worth reading as an answer: it mentions
// "confidence"/"certainty" ("Confidence level: high"), or it is a confidence statement with
// only filler words around it ("I'm 90% sure.", "I am about 95% certain of this.").
bool is_confidence_line(std::string_view line);

// `s` up to a confidence remark inside it: "Paris (confidence: 90%)" and "Paris (about 90%
// sure)" give "Paris".
std::string_view before_confidence(std::string_view s);

}  // namespace parley::answer_scan
