#pragma once
// Task: one benchmark item (question, optional options, gold answer). Loaded by the dataset
// readers (dataset.h), shared read-only by every debate on it. Immutable after loading.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

// kForecast: a numeric forecast stated as "Impact: <value>" or a signed percentage (protocols
// paper §2.3); gold is the realised value. kLabel: one label of the task's LabelSet (parley/labels.h),
// written freely and read through its synonyms; gold is the canonical label.
enum class AnswerType { kChoice, kNumber, kText, kForecast, kLabel };

const char* answer_type_name(AnswerType type);  // "choice" | "number" | "text" | "forecast" | "label"
std::optional<AnswerType> parse_answer_type(std::string_view name);  // the inverse; nullopt for another word

class LabelSet;
class EvidenceIndex;

// An evidence document (MACI §3.2): what agents cite by id, retrieval ranks and the encoder embeds.
struct EvidenceDocument {
  std::string id;    // unique within its corpus (or its task)
  std::string text;  // what is indexed, embedded and shown to the agents
};

struct Task {
  std::string id;
  std::string question;
  std::vector<std::string> options;  // choice tasks: option texts, labelled A, B, C, ...
  AnswerType answer_type = AnswerType::kText;
  // Gold answer in canonical form: the option letter ("B") for choice tasks, a canonical
  // number string ("42", "0.5", "-3") for numeric ones, the raw reference text otherwise.
  std::string answer;
  // Optional latent difficulty in [0, 1], used by the simulator when present.
  std::optional<double> difficulty;
  // Number and forecast tasks: an answer within this absolute distance of the gold is correct
  // (default: equal up to a relative 1e-6).
  std::optional<double> tolerance;
  // Label tasks: the outcome space (shared by the dataset's tasks); null for the other types.
  std::shared_ptr<const LabelSet> labels;
  // Evidence of this task alone (a JSONL row's `documents`, e.g. the article a news task rates).
  std::vector<EvidenceDocument> documents;
  // The dataset's evidence corpus (`dataset.evidence`), shared by its tasks; null when none. An
  // index answers one thread at a time (parley/evidence.h): the debates' loop thread.
  std::shared_ptr<const EvidenceIndex> evidence;
};

// "A", "B", ... "Z", then "AA", "AB", ... for option index 0, 1, ... 25, 26, 27, ...
std::string option_letter(std::size_t index);

// The option index a label names: the inverse of option_letter for upper-case labels ("AA" is
// 26); nullopt for anything else (empty, lower case, not letters).
std::optional<std::size_t> option_index(std::string_view label);

}  // namespace parley
