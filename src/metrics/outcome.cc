// The debate's outcome as the store's index records it (docs/formats.md, "results.sqlite"):
// where it started (the first round's vote), whether it flipped right → wrong, its rounds. Every
// comparison with the gold is answers_match on answer_key(), as the run decided `correct`.
#include <algorithm>

#include "metrics/turns.h"
#include "parley/answer.h"
#include "parley/metrics.h"
#include "protocols/vote.h"

namespace parley {

Task answer_key(const Transcript& t) {
  Task task;
  task.id = t.task_id;
  task.answer = t.gold;
  task.answer_type = t.answer_type.value_or(AnswerType::kText);
  task.tolerance = t.tolerance;
  return task;
}

namespace {

// The first round's vote of `turns` (the answer-bearing ones) against the gold.
std::optional<bool> first_round_right(const Transcript& t, const std::vector<DebateTurn>& turns) {
  if (turns.empty()) return std::nullopt;
  const int first = std::min_element(turns.begin(), turns.end(), [](const DebateTurn& a, const DebateTurn& b) {
                      return a.round < b.round;
                    })->round;
  std::vector<Answer> answers;
  for (const DebateTurn& turn : turns) {
    if (turn.round != first || !turn.answer) continue;
    Answer answer;
    answer.value = std::string(*turn.answer);
    answer.confidence = turn.confidence;
    answers.push_back(std::move(answer));
  }
  const Task key = answer_key(t);
  const VoteResult vote = majority_vote(answers, key.answer_type);
  if (!vote.winner) return std::nullopt;
  return answers_match(key, *vote.winner);
}

}  // namespace

DebateOutcome debate_outcome(const Transcript& t) {
  const std::vector<DebateTurn> turns = agent_turns(t);
  DebateOutcome outcome;
  outcome.initially_correct = first_round_right(t, turns);
  outcome.flipped = t.final_answer && !t.correct && outcome.initially_correct.value_or(false);
  outcome.rounds = distinct_rounds(turns);
  return outcome;
}

std::optional<bool> initially_correct(const Transcript& t) { return debate_outcome(t).initially_correct; }

bool flipped_to_wrong(const Transcript& t) { return debate_outcome(t).flipped; }

int answer_rounds(const Transcript& t) { return debate_outcome(t).rounds; }

}  // namespace parley
