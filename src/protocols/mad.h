#pragma once
// The debate of mad.cc (Liang et al. 2024 as iMAD App. A.1 runs it) as a building block: the
// selective protocols (imad, down) escalate to it from a single agent's answer, which becomes
// the affirmative's stance and the start of the synchronised transcript.

#include <optional>
#include <string>
#include <vector>

#include "parley/protocol.h"

namespace parley {

// Each role's conversation opens with its opening (placeholders that stay the same for the
// whole debate) and grows by one turn template per call, after the role's previous reply.
struct MadTemplates {
  std::string affirmative_opening, negative_opening, judge_opening;
  std::string affirmative_first;  // round 1 of a debate that starts from nothing
  std::string affirmative_open;   // round 1 of a debate opened from a single agent's answer
  std::string affirmative, negative, judge_round, judge_final;
};

struct MadSettings {
  int max_rounds = 5;
  MadTemplates templates;
};

// Where an escalated debate starts (iMAD App. A.1, "Roles and Outputs"): the affirmative
// "takes the single-agent self-critique answer as its initial position", and every role's
// transcript begins with the single agent's reasoning.
struct MadOpening {
  std::string stance;      // the single agent's answer (canonical)
  std::string transcript;  // its response, the transcript's first entry (in the openings' {TRANSCRIPT})
};

// mad's parameters; `opened` adds the template of an opened debate's first affirmative turn
// (the other round-1 template stays: a single stage without an answer opens nothing) and
// shows the opening transcript in the default openings.
std::vector<ParamSpec> mad_params(bool opened);
MadSettings mad_settings(const ProtocolParams& params, bool opened);

// Runs the debate with `debaters` (affirmative, negative) and the debate's first judge; returns
// the judge's answer (or the documented fallback).
Async<std::optional<std::string>> run_mad(Debate& debate, const MadSettings& settings,
                                          std::vector<Agent> debaters, std::optional<MadOpening> opening);

}  // namespace parley
