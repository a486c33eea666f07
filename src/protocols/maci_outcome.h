#pragma once
// What a MACI debate hands back besides its answer (src/protocols/maci.cc, `maci_final`): the
// acquisition plan (§4.1.2, App. H; our design) and M-17's reporting scores, as labelled
// choices. Internal to src/protocols; docs/protocols.md ("maci", "Belief metrics").

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parley/maci.h"
#include "parley/task.h"
#include "protocols/maci_reply.h"

namespace parley::maci {

// One agent's plan items, from its last valid reply.
struct Proposals {
  std::string agent;
  std::vector<PlanItem> items;
};

// The plan: the three leading named hypotheses of p; for each pair an ideal discriminating test
// ranked by pairwise_test_entropy_reduction, with a retrieval query "<y1> vs <y2> differential";
// then the agents' items merged when kind and text agree up to case, with who proposed them.
nlohmann::json acquisition_plan(const Distribution& p, const std::vector<Proposals>& proposals,
                                const OutcomeSpace& space);

// `rounds` and the first two agents' final agreement (KL both ways on δ-smoothed beliefs,
// normalised CE, W̃_1 or TV, the ω-weighted generalised JSD as mutual information).
nlohmann::json final_scores(const Task& task, const Controller& controller);

}  // namespace parley::maci
