#pragma once
// The simulator's decisions: what an agent answers and how confident it is, for an initial
// turn and for a revision turn after seeing peers (docs/simulator.md, equations 1–9). Called by
// the simulator client for every request; pure functions of (params, profile, request), with
// every draw taken from an Rng seeded by a hash of the request's annotations, never from call
// order.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "llm/simulator_answers.h"
#include "llm/simulator_params.h"
#include "parley/chat.h"

namespace parley::sim {

// What the simulator knows about a task, the same for every agent and seed.
struct TaskLatents {
  double difficulty = 0.5;  // d
  double shared = 0.0;      // s_t, the shared-difficulty term that correlates agents' errors
  AnswerSpace answers;
};

TaskLatents task_latents(const SimulatorParams& params, const Task& task);

// The kind of turn a request models: a "reask" is the turn it repeats (note.repeats), so that
// it states the same answer the failed reply meant.
std::string_view modelled_turn(const Annotations& note);

// How a turn is modelled: initial ("answer", "sample", MAD's round-1 "affirmative", unknown
// kinds) or revision ("revise", MAD's later "affirmative" and every "negative", which argue
// against what they were shown). A "reask" that does not say what it repeats is initial in
// round 0 and a revision afterwards.
enum class TurnModel { kInitial, kRevise };
TurnModel turn_model(const Annotations& note);

// iMAD's self-critique turn and its re-ask.
bool is_self_critique_turn(const Annotations& note);

// MAD's debater turns ("affirmative", "negative", and their re-asks), whose debate starts in
// round 1.
bool is_mad_debater(const Annotations& note);

// A revision policy's θ for one agent (simulator_policy.h): weights of the features below, added to the simulator's utility of eq. (8).
enum PolicyFeature : std::size_t {
  kSupport = 0,      // S(x), the support of eq. (6): adds to `persuasion`
  kKeep = 1,         // 1[x = own previous answer]: adds to the profile's `stubbornness`
  kRecognition = 2,  // R(x), the recognition (or reflection) utility of the gold for a wrong agent
  kPlurality = 3,    // 1[x is among the answers most peers showed]
  kPolicyFeatures = 4,
};
using PolicyWeights = std::array<double, kPolicyFeatures>;

struct Decision {
  std::string answer;           // canonical
  bool correct = false;
  double confidence = 0.5;      // a whole percentage / 100, exactly as written in the text
  double latent = 0.0;          // initial turns: the margin z = skill + ε of eq. (3) (correct iff z > 0)
  // Revision turns only.
  std::string previous;         // the answer the agent held before this turn
  bool switched = false;
  std::string persuader;        // peer whose answer was adopted ("" = own reflection)
};

// The agent's answer for this request. For TurnModel::kRevise the request's `shown` peers and
// `own_previous` drive persuasion, under the agent's revision-policy weights when given
// (simulator_policy.h; null: the simulator's own behaviour).
Decision decide(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                double temperature, const TaskLatents& task, const PolicyWeights* weights = nullptr);

// iMAD's self-critique (docs/simulator.md, "Self-critique"): the initial answer (eqs. 3–5), the
// agent's hesitation, the alternative the forced critique argues for, and the final answer.
struct Critique {
  Decision initial;
  double hesitation = 0.0;           // h in [0, 1], eq. (13)
  std::string alternative;           // canonical; "" when the task has no other answer
  double critique_confidence = 0.5;  // eq. (14)
  Decision final;                    // eqs. (15)–(16)
};
Critique decide_self_critique(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                              double temperature, const TaskLatents& task);

// Seed of a named stream of draws for this request. Sample index and temperature enter only at
// temperature > 0, so that T = 0 replies are identical across samples.
std::uint64_t stream_seed(const SimulatorParams& params, const Annotations& note, double temperature,
                          std::string_view stream);

double logistic(double x);

}  // namespace parley::sim
