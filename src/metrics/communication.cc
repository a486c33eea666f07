// NComm of SVR-MAD (§5, "Metrics"): the pairwise context transfers of a debate.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/turns.h"
#include "parley/metrics.h"

namespace parley {

std::int64_t communications(const Transcript& transcript) { return communications(debate_turns(transcript)); }

std::int64_t communications(const std::vector<DebateTurn>& debate_turns) {
  std::int64_t transfers = 0;
  // Every turn counts, judges' too: NComm is a cost, and a judge reading the agents is one.
  // A re-ask is part of its turn and transfers nothing new.
  std::vector<std::string_view> senders;
  for (const auto& turn : debate_turns) {
    senders.assign(turn.shown.begin(), turn.shown.end());
    std::erase(senders, turn.agent);  // an agent's own earlier message is not a transfer between agents
    std::sort(senders.begin(), senders.end());
    transfers += std::unique(senders.begin(), senders.end()) - senders.begin();
  }
  return transfers;
}

}  // namespace parley
