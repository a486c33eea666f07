#pragma once
// The turn-based protocols of the protocols paper (§2.2, Fig. 2): R rounds with one turn per
// agent in a per-round order, under a context rule — NI (own context only), CR (the peers'
// outputs of the previous round), WR (the peers' outputs of the current round that came before
// the turn). The order and who is silenced come from a scheduler: a uniform shuffle per
// round for NI, CR and WR; RA-CR (ra_cr.cc) overrides it with judge-ranked scheduling.

#include <optional>
#include <vector>

#include "parley/protocol.h"

namespace parley {

enum class Visibility {
  kNone,           // NI: the agent sees only its own earlier turns
  kPreviousRound,  // CR: the peers' outputs of round r − 1
  kCurrentRound,   // WR: the peers' outputs of the current round, those that came before the turn
};

// What a scheduler may read: the agents and every turn so far.
struct RoundHistory {
  std::vector<Agent> agents;
  // turns[r][i]: agent i's turn in round r; nullopt when it was silenced.
  std::vector<std::vector<std::optional<Turn>>> turns;
  // The order agents spoke in, per round (silenced agents left out).
  std::vector<std::vector<std::size_t>> spoke;
  // Per-agent quality score a scheduler sets (RA-CR: the judge's score of the agent's output in
  // the previous round, nullopt when it has none).
  std::vector<std::optional<double>> quality;
};

struct RoundPlan {
  std::vector<std::size_t> order;     // agent indices in speaking order
  std::vector<std::size_t> silenced;  // agents without a turn this round
};

class OrderedRounds : public Protocol {
 public:
  OrderedRounds(int agents, int rounds, Visibility visibility)
      : agent_count_(agents), rounds_(rounds), visibility_(visibility) {}
  Async<std::optional<std::string>> run(Debate& debate) const override;

 protected:
  // The order of round `round` (0-based). Default: a uniform shuffle, nobody silenced
  // ("Both WR and CR preserve shuffled agent-turn order to avoid fixed-order artifacts").
  virtual Async<RoundPlan> plan_round(Debate& debate, int round, RoundHistory& history) const;

 private:
  std::vector<std::size_t> visible_peers(std::size_t self, int round, const RoundHistory& history) const;
  Async<Turn> take_turn(Debate& debate, std::size_t self, int round, const RoundHistory& history,
                        std::vector<ChatMessage>& conversation) const;

  int agent_count_;
  int rounds_;
  Visibility visibility_;
};

// The uniform shuffle of `count` agents the default scheduler uses.
std::vector<std::size_t> shuffled_order(Rng& rng, std::size_t count);

}  // namespace parley
