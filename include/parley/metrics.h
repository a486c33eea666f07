#pragma once
// Per-debate metrics computed from a finished transcript and stored in Transcript::metrics
// (the runner calls add_debate_metrics before storing). Pure functions.
//
// Interaction metrics of the protocols paper (debate-protocols-wr-cr-racr §2.3):
//   prr  eq. (1): share of agent turns that name a peer together with a stance word
//   ad   eq. (2): mean pairwise Jaccard dissimilarity of the turns' token sets
//   cf   eq. (3): relative reduction of the cross-agent forecast variance, first to final round
// A metric that is undefined for a debate (too few turns, no forecasts) is left out of the map.

#include <optional>
#include <string_view>

#include "parley/transcript.h"

namespace parley {

struct InteractionMetrics {
  std::optional<double> prr;
  std::optional<double> ad;
  std::optional<double> cf;
};

InteractionMetrics interaction_metrics(const Transcript& transcript);

// Fills transcript.metrics with every metric defined for it ("prr", "ad", "cf").
void add_debate_metrics(Transcript& transcript);

}  // namespace parley
