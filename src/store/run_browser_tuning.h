#pragma once
// RunBrowser with its reading tuned (internal to src/store): the tests read every list each way
// (debate_list.h) — walking the sort's index or sorting the matching rows, finding a searched final
// answer through the answers' index or in every row — and check they agree.

#include <cstdint>
#include <filesystem>
#include <memory>

#include "debate_list.h"
#include "parley/run_browser.h"

namespace parley {

struct BrowserTuning {
  // Index entries a walk may read (debate_list.h): 0 sorts every page that a walk along an index
  // does not cover; a huge value walks wherever an index has the order.
  std::int64_t walk_budget = kDefaultWalkBudget;
  // Distinct final answers a search lists (Resolved::answers): 0 reads every row's answer.
  std::size_t listed_answers = kListedAnswers;
};

Result<std::unique_ptr<RunBrowser>> open_run_browser(const std::filesystem::path& run_dir,
                                                     const IndexProgress& progress, BrowserTuning tuning);

}  // namespace parley
