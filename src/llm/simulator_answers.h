#pragma once
// The answer space the simulator draws from for one task: the gold and a list of plausible
// wrong answers whose first entry is the task's "attractor" (the wrong answer agents drift to
// together). Also the simulator's own gold matching. Used by simulator_model.cc. Pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/task.h"

namespace parley::sim {

struct AnswerSpace {
  std::string gold;                // canonical form written in "Answer:" lines
  std::vector<std::string> wrong;  // distinct, none matches the gold; wrong[0] is the attractor
};

// `task_hash` picks the attractor; the same task always has the same one.
AnswerSpace answer_space(const Task& task, std::uint64_t task_hash);

// Whether `answer` names the gold: option letters compared case-insensitively, numbers with a
// relative tolerance of 1e-6, text after lower-casing and dropping punctuation and articles.
bool matches_gold(const Task& task, std::string_view answer);

// A task asked without a reference answer (parley serve's requests) gets one the simulated agents
// can be right or wrong about, drawn from the task's question: an option (of four when it lists
// none) for a choice task, an integer in 0–99 for a number or forecast, a word of the question
// for text, a label of its set. nullopt when the task has its answer.
std::optional<std::string> latent_answer(const Task& task);

// Integers without decimals ("42"), otherwise at most six decimals without trailing zeros.
std::string canonical_number_text(double value);

}  // namespace parley::sim
