#pragma once
// The difficulty breakdown of SVR-MAD Fig. 1–2 (DifficultyBreakdown in parley/report.h): built
// by summarize(), written into summary.json and rendered under the table.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "parley/report.h"

namespace parley {

std::optional<DifficultyBreakdown> difficulty_breakdown(const std::vector<Transcript>& transcripts,
                                                        const std::vector<std::string>& protocol_order);
nlohmann::ordered_json difficulty_to_json(const DifficultyBreakdown& breakdown);
std::string render_difficulty(const DifficultyBreakdown& breakdown,
                              const std::vector<std::string>& protocols);

}  // namespace parley
