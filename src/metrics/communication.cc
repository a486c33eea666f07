// NComm of SVR-MAD (§5, "Metrics"): the pairwise context transfers of a debate.
#include <set>
#include <string>

#include "metrics/turns.h"
#include "parley/metrics.h"

namespace parley {

std::int64_t communications(const Transcript& transcript) {
  std::int64_t transfers = 0;
  // Every turn counts, judges' too: NComm is a cost, and a judge reading the agents is one.
  // A re-ask is part of its turn and transfers nothing new.
  for (const auto& turn : debate_turns(transcript)) {
    std::set<std::string> senders(turn.shown.begin(), turn.shown.end());
    senders.erase(turn.agent);  // an agent's own earlier message is not a transfer between agents
    transfers += static_cast<std::int64_t>(senders.size());
  }
  return transfers;
}

}  // namespace parley
