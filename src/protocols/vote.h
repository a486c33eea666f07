#pragma once
// Majority vote over agents' answers, shared by every protocol that aggregates by voting
// (self-consistency, Du et al. debate, the budget fallback) and by the metrics that re-run the
// vote (UDPO's leave-one-out instability).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/answer.h"
#include "parley/task.h"

namespace parley {

struct VoteResult {
  std::optional<std::string> winner;  // nullopt when no answer parsed
  int votes = 0;                      // votes for the winner
  int voters = 0;                     // parsed answers counted
  bool median = false;                // a forecast task's collective answer: the median forecast
};

// Plurality over parsed answers. Ties go to the answer with the larger summed self-reported
// confidence, then to the one that appears first (documented in docs/protocols.md). Free-text
// answers are grouped by normalize_text ("Paris." and "paris" are one vote); the winner is
// spelled as its first voter wrote it. Forecast tasks have no plurality over a continuum:
// their collective answer is the median of the forecasts (the mean of the middle two when
// their number is even).
VoteResult majority_vote(const std::vector<Answer>& answers, AnswerType type = AnswerType::kChoice);

// The form under which majority_vote groups an answer: its normalised text for free-text
// answers, the canonical value itself otherwise. Two answers are one vote when their keys match.
std::string vote_key(const std::string& value, AnswerType type);

// How many of `answers` form the largest group of one vote (equal vote_key; unparsed answers
// agree with nothing): the consensus of the debates' early stop (SVR-MAD §5). 0 when none parsed.
int largest_agreement(const std::vector<Answer>& answers, AnswerType type);

// Whether the answers are unanimous: at least one, every one parsed, all one vote (vote_key).
// The one definition of "unanimous before debate": SVR-MAD skips such a unit (§5) and leaves it
// out of its evaluation set (App. A); svr_mad records the decision as its "unanimous" stop, which
// the difficulty breakdown and tune-sid-et read (src/report/difficulty.h).
bool unanimous(const std::vector<Answer>& answers, AnswerType type);

// Whether two canonical answers are the same answer, by the rule that matches gold answers
// (answers_match with `b` as the gold): mad's candidate set, S2-MAD's answer equivalence.
bool same_answer(const Task& task, std::string_view a, const std::string& b);

// "2 of 3 for B": the detail of a protocol's "vote" event.
std::string describe(const VoteResult& vote);

}  // namespace parley
