// wr: Within-Round (protocols paper §1 and §2.2, Fig. 2a) — "agents see only current-round
// contributions": agents speak one after another in a shuffled order, each seeing the outputs
// of the peers who spoke before it in the same round (and its own conversation).
#include "protocols/ordered_rounds.h"
#include "protocols/protocols.h"

namespace parley {

ProtocolInfo wr_protocol() {
  return {"wr",
          "Within-Round: sequential shuffled turns, each seeing the peers' outputs earlier in the same round; majority vote",
          "Protocols paper (debate-protocols-wr-cr-racr) §2.2, Fig. 2a",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 2, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 1, 20, "rounds, each one turn per agent"}},
          [](const ProtocolParams& p) {
            return std::make_unique<OrderedRounds>(static_cast<int>(p.integer("agents")),
                                                   static_cast<int>(p.integer("rounds")), Visibility::kCurrentRound);
          },
          2};
}

}  // namespace parley
