#pragma once
// iMAD's structured self-critique response (Fan et al. 2026, §4.1 (i) and App. A.1): one agent
// answers, justifies its answer step by step, is made to argue against it, and then commits to
// a final answer, stating a confidence for the initial belief and for the forced disagreement
// (the paper), and for the final answer (parley's addition, for Table 5's FinalConfidence). The
// response is written in labelled sections (see self_critique_prompt() in
// src/protocols/self_critique.cc) and read here into its parts; a response missing
// sections is still read as far as it goes. Pure functions, safe from any thread.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/answer.h"
#include "parley/task.h"

namespace parley {

// The sections, in the order the prompt asks for them, with the label each starts with.
enum class CritiqueSection {
  kInitialAnswer,
  kInitialReasoning,
  kInitialConfidence,
  kSelfCritique,
  kAlternativeAnswer,  // optional: the answer the critique argues for
  kCritiqueConfidence,
  kFinalAnswer,
  kFinalConfidence,
};
inline constexpr std::array<std::string_view, 8> kCritiqueSectionLabels = {
    "Initial answer",     "Initial reasoning",   "Initial confidence", "Self-critique",
    "Alternative answer", "Critique confidence", "Final answer",       "Final confidence"};
inline std::string_view section_label(CritiqueSection s) {
  return kCritiqueSectionLabels[static_cast<int>(s)];
}

struct SelfCritique {
  Answer initial;                             // the initial answer and its confidence
  std::string initial_reasoning;              // the step-by-step justification
  std::string critique;                       // the forced counter-argument
  std::optional<std::string> alternative;     // the answer the critique argues for, if stated
  std::optional<double> critique_confidence;  // confidence in the forced disagreement
  Answer final;                               // the committed answer and its confidence
  // The final answer as written, without its reasoning or confidence ("B (Jupiter)"): the Final
  // answer section, else the Initial answer section; "" when the reply has neither. iMAD's
  // AnswerToken counts its tokens (Table 5).
  std::string final_answer_text;
  std::vector<CritiqueSection> missing;       // required sections absent or unreadable

  // The answer of the turn: the final answer, else the initial one, else whatever answer
  // statement the reply makes; its confidence goes with it.
  Answer answer;

  bool complete() const { return missing.empty(); }
  // "missing sections: Final answer, Final confidence" — "" when complete.
  std::string problem() const;
};

// Reads a self-critique response in the layouts models write: labelled lines ("**Final answer:**",
// "3. Initial reasoning:", "Confidence in the critique:"), headings ("## Self-critique"),
// labels inside a line ("B — Jupiter is largest. Confidence: 85%") and bare "Answer"/
// "Confidence" labels that belong to the block they appear in. The rules are in
// docs/protocols.md, "Selective debate".
SelfCritique parse_self_critique(std::string_view text, const Task& task);

}  // namespace parley
