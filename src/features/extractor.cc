// FeatureExtractor: the 41 features of iMAD's debate-decision classifier in Table 5's order
// (Fan et al., AAAI'26, App. A.2), from the question, the initial reasoning, the self-critique
// and the three confidences of one self-critique response.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

// parley's choice (the paper does not say): a missing confidence is the uninformative 0.5;
// reported values are clamped.
double confidence_feature(const std::optional<double>& value) {
  if (!value.has_value() || std::isnan(*value)) return 0.5;
  return std::clamp(*value, 0.0, 1.0);
}

// The syntax, readability and part-of-speech features of one text, in Table 5's order.
void append_text_features(std::vector<double>& out, const SyntaxStats& syntax, std::string_view text) {
  out.push_back(syntax.max_depth);
  out.push_back(flesch_reading_ease(text));
  out.push_back(coleman_liau_index(text));
  out.push_back(syntax.nouns);
  out.push_back(syntax.verbs);
  out.push_back(syntax.adjectives);
}

void append_cues(std::vector<double>& out, const LexicalCues& cues) {
  out.push_back(cues.hedges);
  out.push_back(cues.certainty);
  out.push_back(cues.contrast);
}

}  // namespace

const std::vector<std::string>& trigger_feature_names() {
  // iMAD App. A.2, Table 5, in the table's order and spelling.
  static const std::vector<std::string> names = {
      "QuestionToken",
      "AnswerToken",
      "question_named_entity_count",
      "qtype_what",
      "qtype_where",
      "qtype_why",
      "qtype_how",
      "qtype_when",
      "qtype_who",
      "qtype_is",
      "qtype_are",
      "qtype_does",
      "qtype_do",
      "qtype_other",
      "QSyntacticDepth",
      "Question_flesch_reading_ease",
      "Question_coleman_liau_index",
      "Question_num_nouns",
      "Question_num_verbs",
      "Question_num_adjs",
      "InitialConfidence",
      "InitialReason_HedgeCount",
      "InitialReason_CertaintyCount",
      "InitialReason_contrast",
      "InitialReason_SyntacticDepth",
      "InitialReason_flesch_reading_ease",
      "InitialReason_coleman_liau_index",
      "InitialReason_num_nouns",
      "InitialReason_num_verbs",
      "InitialReason_num_adjs",
      "NegativeConfidence",
      "NegativeReason_HedgeCount",
      "NegativeReason_CertaintyCount",
      "NegativeReason_contrast",
      "FinalConfidence",
      "NegativeReason_SyntacticDepth",
      "NegativeReason_flesch_reading_ease",
      "NegativeReason_coleman_liau_index",
      "NegativeReason_num_nouns",
      "NegativeReason_num_verbs",
      "NegativeReason_num_adjs",
  };
  return names;
}

FeatureExtractor::FeatureExtractor() = default;

std::vector<double> FeatureExtractor::extract(const FeatureInput& input) const {
  std::vector<double> out;
  out.reserve(trigger_feature_names().size());
  // Question: surface statistics and question type.
  out.push_back(static_cast<double>(features::token_spans(input.question).size()));
  out.push_back(static_cast<double>(features::token_spans(input.final_answer).size()));  // Table 5
  out.push_back(named_entity_count(input.question));
  const std::string type = question_type(input.question);
  for (const char* name :
       {"what", "where", "why", "how", "when", "who", "is", "are", "does", "do", "other"}) {
    out.push_back(type == name ? 1.0 : 0.0);
  }
  append_text_features(out, syntax_.analyze(input.question), input.question);
  // Initial reasoning.
  out.push_back(confidence_feature(input.initial_confidence));
  append_cues(out, lexical_cues(input.initial_reasoning));
  append_text_features(out, syntax_.analyze(input.initial_reasoning), input.initial_reasoning);
  // Self-critique; Table 5 places FinalConfidence between its lexical cues and its syntax.
  out.push_back(confidence_feature(input.negative_confidence));
  append_cues(out, lexical_cues(input.critique_reasoning));
  out.push_back(confidence_feature(input.final_confidence));
  append_text_features(out, syntax_.analyze(input.critique_reasoning), input.critique_reasoning);
  return out;
}

}  // namespace parley
