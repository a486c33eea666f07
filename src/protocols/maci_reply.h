#pragma once
// MACI's structured agent reply (App. G.2; the schema is ours, docs/protocols.md "maci"):
// claim–justification arguments citing evidence ids, a probability distribution over the task's
// outcome space, and optional acquisition-plan items. Parsed at the edge into typed values; a
// malformed reply is an Error in words sent back to the model (Debate::ask_structured).
// Internal to src/protocols. Pure functions; safe from any thread.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/labels.h"
#include "parley/result.h"
#include "parley/task.h"

namespace parley::maci {

// The outcomes a belief is spread over: a choice task's option letters, or a label task's labels,
// then "other" (the last), which takes labels outside the set and the mass a top-k list leaves.
class OutcomeSpace {
 public:
  // Error for a task without a finite outcome space (number, text, forecast; a label task
  // without dataset.labels), or whose label set has a label "other".
  static Result<OutcomeSpace> of(const Task& task);

  std::size_t size() const { return names_.size(); }  // |Y|, "other" included
  std::size_t other() const { return names_.size() - 1; }
  const std::string& name(std::size_t index) const { return names_[index]; }
  // The outcome a written label names, read as answers are (read_label_name: "HCV", "Hepatitis C
  // (HCV)"; read_option_label: "b", "(B) Jupiter", "Option B"), else other(); "other" is other().
  std::size_t index_of(std::string_view label) const;

 private:
  std::vector<std::string> names_;
  std::shared_ptr<const LabelSet> labels_;  // label tasks
  std::vector<std::string> options_;        // choice tasks
};

struct Argument {
  std::string claim;
  std::string justification;
  std::vector<std::string> evidence;  // cited evidence ids, as written, without repeats
};

// One item of the acquisition plan an agent proposes ("labs": "IgM/IgG serology").
struct PlanItem {
  std::string kind;
  std::string text;
};

struct Reply {
  std::vector<Argument> arguments;
  std::vector<double> belief;  // over the OutcomeSpace
  std::vector<PlanItem> plan;
};

// Reads the first JSON object of `text` that is a valid reply:
//   {"arguments": [{"claim": str, "justification": str, "evidence": [id, ...]}, ...],
//    "distribution": {"<label>": p, ...}  or  [{"label": str, "probability": p}, ...],
//    "acquisition_plan": {"<kind>": [str, ...], ...}}            (optional)
// Probabilities are numbers in [0, 1], or all percentages (any value above 1: each in [0, 100],
// and then no fraction below 1 besides; "60%" strings too). Evidence ids are trimmed, without
// citation brackets. Labels naming one outcome add up; labels outside the space go to "other".
// A total above 1 is renormalised; a total below 1 leaves the rest to "other" (a top-k list),
// except that a total within 0.01 of 1 is renormalised (rounding). Errors: no such object, no
// argument, an argument without claim or justification, an evidence id that is not a string or
// integer, an empty or all-zero distribution, a probability that is negative, not a number or
// out of range.
Result<Reply> read_reply(std::string_view text, const OutcomeSpace& space);

// The reply's form, for the agents' instructions and re-asks.
std::string reply_format();

}  // namespace parley::maci
