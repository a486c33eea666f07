// self_critique_feature_input: a self-critique response split into what the features read.
#include "parley/features.h"
#include "parley/self_critique.h"

namespace parley {

FeatureInput self_critique_feature_input(std::string_view question, std::string_view response) {
  Task task;  // the sections alone matter: a free-text task reads any answer
  task.question = std::string(question);
  task.answer_type = AnswerType::kText;
  const SelfCritique parsed = parse_self_critique(response, task);
  FeatureInput input;
  input.question = std::string(question);
  input.final_answer = parsed.final_answer_text;
  input.initial_reasoning = parsed.initial_reasoning;
  input.critique_reasoning = parsed.critique;
  input.initial_confidence = parsed.initial.confidence;
  input.negative_confidence = parsed.critique_confidence;
  input.final_confidence = parsed.final.confidence;
  for (CritiqueSection section : parsed.missing) input.missing_sections.emplace_back(section_label(section));
  return input;
}

}  // namespace parley
