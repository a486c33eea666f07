#pragma once
// The viewer API's JSON bodies (docs/formats.md, "parley view"), built with nlohmann-json so that
// every text from the store — a model's answer, a question — is a JSON string and nothing else.
// Seeds are decimal strings: a 64-bit seed does not fit a JavaScript number. Internal to src/view.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parley/run_browser.h"

namespace parley::view {

// GET /api/run: `name` is the run directory's name, `report` whether DIR/report.html exists.
nlohmann::json run_json(const RunFacts& facts, const std::string& name, bool report);

// One list row.
nlohmann::json row_json(const DebateRow& row);

// GET /api/debates.
nlohmann::json page_json(const DebatePage& page);

// GET /api/debate: the stored transcript (already JSON, its transcripts.jsonl line) spliced in as
// it is, and the other protocols' rows.
std::string debate_json(const std::string& transcript, const std::vector<DebateRow>& others);

// {"error": message} (and "parameter" when one is at fault).
std::string error_json(const std::string& message, const std::string& parameter = "");

}  // namespace parley::view
