#pragma once
// Internal to parley_evidence: the JSONL evidence corpus read from text, so that tests need no
// files. load_evidence_corpus (parley/evidence.h) reads the file and prefixes its errors with
// the path. Pure; no state.

#include <string_view>
#include <vector>

#include "parley/evidence.h"
#include "parley/result.h"

namespace parley::evidence {

// The documents of a corpus (format in parley/evidence.h). Errors read "line 4: missing text",
// "line 9: duplicate id 'flu' (first on line 2)", "no documents".
Result<std::vector<EvidenceDocument>> parse_evidence_jsonl(std::string_view text);

}  // namespace parley::evidence
