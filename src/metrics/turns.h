#pragma once
// The turns of a debate as every metric reads them, so that all metrics agree on what a turn
// is: one turn per call that succeeded, with a re-ask folded into the call it repeats (the
// re-ask's reply replaces the turn's). A turn views its transcript's text, which must outlive
// it. Internal to src/metrics.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parley/transcript.h"

namespace parley {

struct DebateTurn {
  int round = 0;
  std::string_view agent;
  std::string_view role;                   // of the call the turn began with (never "reask")
  std::string_view text;                   // the final reply
  std::optional<std::string_view> answer;  // its canonical answer, absent when unparsed
  std::optional<double> confidence;
  std::span<const std::string> shown;      // agents whose messages were in the turn's context

  bool is_agent_answer() const { return is_agent_answer_role(role); }
};

// Every turn whose first call succeeded, in the order the calls were issued. A failed call is
// not a turn; a failed re-ask leaves its turn as the first call made it.
std::vector<DebateTurn> debate_turns(const Transcript& transcript);

// The answer-bearing turns only (is_agent_answer_role): no judge, moderator or summary calls.
std::vector<DebateTurn> agent_turns(const Transcript& transcript);
std::vector<DebateTurn> agent_turns(const std::vector<DebateTurn>& debate_turns);

// How many distinct rounds the turns are of.
int distinct_rounds(const std::vector<DebateTurn>& turns);

// The metrics of metrics.h from turns already read (add_debate_metrics reads them once).
struct InteractionMetrics;
struct UncertaintyMetrics;
struct DebateMetricsOptions;
InteractionMetrics interaction_metrics(const Transcript& transcript, const std::vector<DebateTurn>& agent_turns);
UncertaintyMetrics uncertainty_metrics(const std::vector<DebateTurn>& agent_turns, const DebateMetricsOptions& options);
std::int64_t communications(const std::vector<DebateTurn>& debate_turns);

}  // namespace parley
