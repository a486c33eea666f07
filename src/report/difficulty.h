#pragma once
// The difficulty breakdown of SVR-MAD Fig. 1–2 (DifficultyBreakdown in parley/report.h): built
// by summarize(), written into summary.json and rendered under the table.

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "parley/report.h"

namespace parley {

using UnitKey = std::pair<std::string, std::uint64_t>;  // (task id, seed)

// The pre-debate answers of a run as the protocol that recorded them (svr_mad's "priors" event)
// saw them: `source` is the first protocol in `preferred` that recorded priors, else the first
// by name; "" when none did. A unit is `unanimous` when that protocol ended it with its
// "unanimous" stop -- its decision by vote.h's unanimous(), the one definition of "unanimous
// before debate" (SVR-MAD §5, App. A: such units are not the evaluation set).
struct PreDebateRecord {
  std::string source;
  std::set<UnitKey> unanimous;  // units unanimous before debate
};
PreDebateRecord pre_debate_record(const std::vector<Transcript>& transcripts,
                                  const std::vector<std::string>& preferred);

std::optional<DifficultyBreakdown> difficulty_breakdown(const std::vector<Transcript>& transcripts,
                                                        const std::vector<std::string>& protocol_order);
nlohmann::ordered_json difficulty_to_json(const DifficultyBreakdown& breakdown);
std::string render_difficulty(const DifficultyBreakdown& breakdown,
                              const std::vector<std::string>& protocols);

}  // namespace parley
