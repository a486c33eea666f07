#pragma once
// debate: Du et al. (2024) "society of minds" debate. N agents answer independently; then, in
// each of R rounds, every agent sees its peers' latest solutions and gives an updated answer
// (all agents of a round in parallel); the final answer is the majority vote of the last round.
// Who sees whom is a hook (visible_peers) so that restricted-graph protocols derive from this.

#include <vector>

#include "parley/protocol.h"

namespace parley {

class RoundDebate : public Protocol {
 public:
  RoundDebate(int agents, int rounds) : agent_count_(agents), rounds_(rounds) {}
  Async<std::optional<std::string>> run(Debate& debate) const override;

 protected:
  // Indices of the agents whose latest solution agent `self` sees in `round` (>= 1).
  // Du et al.: all other agents.
  virtual std::vector<std::size_t> visible_peers(std::size_t self, int round, std::size_t agent_count) const;

 private:
  int agent_count_;
  int rounds_;
};

}  // namespace parley
