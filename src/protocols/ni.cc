// ni: No-Interaction (protocols paper §2.2, Fig. 2d) — the baseline contrast. Each agent answers
// and then reconsiders only its own earlier output; turn order is shuffled per round.
#include "protocols/ordered_rounds.h"
#include "protocols/protocols.h"

namespace parley {

ProtocolInfo ni_protocol() {
  return {"ni",
          "No-Interaction: R rounds, each agent sees only its own earlier turns; majority vote",
          "Protocols paper (debate-protocols-wr-cr-racr) §2.2, Fig. 2d",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 1, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 1, 20, "rounds, each one turn per agent"}},
          [](const ProtocolParams& p) {
            return std::make_unique<OrderedRounds>(static_cast<int>(p.integer("agents")),
                                                   static_cast<int>(p.integer("rounds")), Visibility::kNone);
          },
          2};
}

}  // namespace parley
