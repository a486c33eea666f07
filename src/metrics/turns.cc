#include "metrics/turns.h"

#include <map>
#include <set>

namespace parley {

std::vector<DebateTurn> debate_turns(const Transcript& transcript) {
  std::vector<DebateTurn> turns;
  turns.reserve(transcript.messages.size());
  // The turn each call opened, by call id. A re-ask names the call whose turn it repeats
  // (MessageRecord::repeats), so it joins that turn whatever ran concurrently between them:
  // never by agent and round, which a judge sharing a debater's name, or one agent's samples
  // in one round, would make ambiguous.
  std::map<int, std::size_t> turn_of_call;
  for (const auto& m : transcript.messages) {
    // A best-of-N draft the judge did not keep (and its re-ask) was discarded by the protocol:
    // not a turn.
    if (m.role == "draft") continue;
    if (m.repeats) {
      auto it = turn_of_call.find(*m.repeats);
      if (m.error || it == turn_of_call.end()) continue;
      DebateTurn& turn = turns[it->second];
      turn.text = m.text;
      turn.answer = m.answer;
      turn.confidence = m.confidence;
      continue;
    }
    if (m.error) continue;
    turn_of_call[m.id] = turns.size();
    turns.push_back({m.round, m.agent, m.role, m.text, m.answer, m.confidence, m.shown});
  }
  return turns;
}

std::vector<DebateTurn> agent_turns(const std::vector<DebateTurn>& debate_turns) {
  std::vector<DebateTurn> turns;
  turns.reserve(debate_turns.size());
  for (const DebateTurn& turn : debate_turns)
    if (turn.is_agent_answer()) turns.push_back(turn);
  return turns;
}

int distinct_rounds(const std::vector<DebateTurn>& turns) {
  std::set<int> rounds;
  for (const DebateTurn& t : turns) rounds.insert(t.round);
  return static_cast<int>(rounds.size());
}

std::vector<DebateTurn> agent_turns(const Transcript& transcript) { return agent_turns(debate_turns(transcript)); }

}  // namespace parley
