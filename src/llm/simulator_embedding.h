#pragma once
// Simulated text embeddings (docs/simulator.md, "Embeddings"): what the simulator answers to an
// embeddings request. Deterministic functions of the text (and the task it answers).

#include <string_view>
#include <vector>

#include "parley/task.h"

namespace parley::sim {

inline constexpr std::size_t kEmbeddingDimensions = 256;
// Weight w of the reply's final answer in its embedding; √(1 − w²) is its wording's. At 0.9 two
// replies with the same answer have a cosine of about 0.81 + 0.19·s, with different answers
// about 0.19·s, where s is the cosine of their bags of words.
inline constexpr double kEmbeddingAnswerWeight = 0.9;

// A unit vector: kEmbeddingAnswerWeight · (direction of the answer parsed from `text` against
// `task`, or of the text itself when none parses) + the rest · (hashed bag of words of `text`).
// Without a task the embedding is the bag of words alone.
std::vector<double> simulate_embedding(const Task* task, std::string_view text);

// MACI's evidence and question embeddings (turns "embedding_evidence", "embedding_query"):
// r·u + √(1 − r²)·w, with u a direction of the task's own (its topic), r the text's relevance
// (1 for the question), and w the unit vector along 0.8·c + 0.6·simulate_embedding(task, text),
// c a second direction of the task (its domain, shared by all its evidence): a document's
// cosine with the question is about r, and the mean of many documents keeps the domain part.
inline constexpr double kEvidenceDomainWeight = 0.8;
inline constexpr double kEvidenceOwnWeight = 0.6;
std::vector<double> simulate_evidence_embedding(const Task& task, double relevance, std::string_view text);

}  // namespace parley::sim
