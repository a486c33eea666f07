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

}  // namespace parley::sim
