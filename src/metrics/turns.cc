#include "metrics/turns.h"

#include <map>
#include <utility>

namespace parley {

std::vector<DebateTurn> debate_turns(const Transcript& transcript) {
  std::vector<DebateTurn> turns;
  // The turn a re-ask of (agent, round) belongs to: that agent's latest call in the round.
  // Debate::ask issues the re-ask only after its call's reply, so no other call of the same
  // agent and round can come between them.
  std::map<std::pair<std::string, int>, std::size_t> latest_turn;
  for (const auto& m : transcript.messages) {
    // A best-of-N draft the judge did not keep (and its re-ask) was discarded by the protocol:
    // not a turn, and never the turn a later re-ask belongs to.
    if (m.role == "draft") continue;
    const auto key = std::pair{m.agent, m.round};
    if (m.role == "reask") {
      auto it = latest_turn.find(key);
      if (m.error || it == latest_turn.end()) continue;
      DebateTurn& turn = turns[it->second];
      turn.text = m.text;
      turn.answer = m.answer;
      turn.confidence = m.confidence;
      continue;
    }
    if (m.error) {
      latest_turn.erase(key);
      continue;
    }
    latest_turn[key] = turns.size();
    turns.push_back({m.round, m.agent, m.role, m.text, m.answer, m.confidence, m.shown});
  }
  return turns;
}

std::vector<DebateTurn> agent_turns(const Transcript& transcript) {
  std::vector<DebateTurn> turns = debate_turns(transcript);
  std::erase_if(turns, [](const DebateTurn& turn) { return !turn.is_agent_answer(); });
  return turns;
}

}  // namespace parley
