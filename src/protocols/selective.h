#pragma once
// Selective debate (iMAD §4.1, DOWN): a single agent answers first; a trigger decides whether to
// keep that answer or to escalate to mad, opened from it. Every decision is recorded as a
// "trigger" event whose detail has "decision" ("debate" or "skip"), "single_answer" and
// "single_correct", plus
// what the trigger measured — the report's decision breakdown reads these.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "parley/protocol.h"
#include "protocols/mad.h"

namespace parley {

struct SingleStage {
  Answer answer;     // the single agent's answer (may be unparsed)
  std::string text;  // its reply, which opens the debate's transcript
};

// Records the "trigger" event of a decision on `single` and returns whether to debate: as
// wanted, or always when the single stage has no parsable answer (then with "forced").
bool record_trigger(Debate& debate, const Answer& single, bool debate_wanted, nlohmann::json detail);

// Keeps `single`'s answer when `debate_wanted` is false, otherwise runs mad with `debaters`
// (the single agent first, as the affirmative). A single stage without a parsable answer has
// nothing to keep: it always escalates, to a debate that starts from nothing.
Async<std::optional<std::string>> keep_or_debate(Debate& debate, const MadSettings& mad,
                                                 std::vector<Agent> debaters, SingleStage single,
                                                 bool debate_wanted, nlohmann::json detail);

}  // namespace parley
