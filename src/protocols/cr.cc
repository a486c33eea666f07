// cr: Cross-Round (protocols paper §2.2, Fig. 2b) — no same-round visibility: a turn in round r
// sees the peers' outputs of round r − 1 only; turn order is shuffled per round.
#include "protocols/ordered_rounds.h"
#include "protocols/protocols.h"

namespace parley {

ProtocolInfo cr_protocol() {
  return {"cr",
          "Cross-Round: each turn sees the peers' previous-round outputs only; shuffled order; majority vote",
          "Protocols paper (debate-protocols-wr-cr-racr) §2.2, Fig. 2b",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 2, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 1, 20, "rounds, each one turn per agent"}},
          [](const ProtocolParams& p) {
            return std::make_unique<OrderedRounds>(static_cast<int>(p.integer("agents")),
                                                   static_cast<int>(p.integer("rounds")), Visibility::kPreviousRound);
          },
          2};
}

}  // namespace parley
