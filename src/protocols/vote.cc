#include "protocols/vote.h"

#include <map>

namespace parley {

VoteResult majority_vote(const std::vector<Answer>& answers) {
  struct Tally {
    int votes = 0;
    double confidence = 0.0;
    std::size_t first = 0;
  };
  std::map<std::string, Tally> tallies;
  VoteResult result;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i].value) continue;
    auto [it, inserted] = tallies.try_emplace(*answers[i].value);
    if (inserted) it->second.first = i;
    ++it->second.votes;
    it->second.confidence += answers[i].confidence.value_or(0.0);
    ++result.voters;
  }
  const Tally* best = nullptr;
  for (const auto& [answer, tally] : tallies) {
    const bool better = best == nullptr || tally.votes > best->votes ||
                        (tally.votes == best->votes &&
                         (tally.confidence > best->confidence ||
                          (tally.confidence == best->confidence && tally.first < best->first)));
    if (better) {
      best = &tally;
      result.winner = answer;
      result.votes = tally.votes;
    }
  }
  return result;
}

}  // namespace parley
