#pragma once
// A simulated agent's revision behaviour as a small parametric policy (docs/simulator.md,
// "Revision policies"): eqs. (6)–(8) with four learnable weights per agent, whose action
// probabilities are exact, so that UDPO's likelihood ratio, clip and KL anchor (eqs. 5–8) are
// computed exactly by the reference trainer. Weights of zero are the simulator's own behaviour.

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "llm/simulator_model.h"
#include "llm/simulator_params.h"
#include "parley/result.h"

namespace parley::sim {

const char* policy_feature_name(std::size_t feature);

// One candidate answer of a revision turn.
struct RevisionOption {
  std::string answer;          // canonical
  bool gold = false;
  double base_utility = 0.0;   // eq. (8) with the shipped parameters
  PolicyWeights features{};    // φ(x)
  double peer_support = 0.0;   // eq. (6) without the own term, for eq. (9)
};

// What an agent decides between on a revision turn, everything but the draw. options[0] is the
// own previous answer; the gold is among the options for a wrong agent (shown, or found by
// reflection). A correct agent first keeps its answer outright with probability
// keep_probability (verification, eq. 7), which the policy does not change.
struct RevisionChoice {
  std::string previous;
  bool own_correct = false;
  double keep_probability = 0.0;
  std::vector<RevisionOption> options;
  double total_peer_support = 0.0;
};

RevisionChoice revision_choice(const SimulatorParams& params, const SimulatorProfile& profile,
                               const Annotations& note, double temperature, const TaskLatents& task);

// π_θ(x) for every option: keep_probability · 1[x = options[0]] + (1 − keep_probability) ·
// softmax_x(base_utility + θ·φ(x)). Sums to 1.
std::vector<double> choice_probabilities(const RevisionChoice& choice, const PolicyWeights& weights);

// ∂π_θ(x)/∂θ for every option (rows as in choice_probabilities).
std::vector<PolicyWeights> choice_probability_gradients(const RevisionChoice& choice, const PolicyWeights& weights);

// Per-agent weights, as a checkpoint stores them (docs/formats.md, "Policy files"). An agent
// instance "a1#2" takes the weights of "a1" unless it has its own; an agent without weights
// behaves as the simulator does.
class RevisionPolicies {
 public:
  void set(std::string agent, const PolicyWeights& weights) { weights_[std::move(agent)] = weights; }
  const PolicyWeights* find(std::string_view agent) const;
  const std::map<std::string, PolicyWeights, std::less<>>& all() const { return weights_; }

 private:
  std::map<std::string, PolicyWeights, std::less<>> weights_;
};

// A policy file: {"format": "parley-revision-policy-1", "agents": {"a1": {"support": …, "keep": …,
// "recognition": …, "plurality": …}, …}, …} (other top-level keys, such as training metadata,
// are ignored). Every feature must be given, a number of magnitude at most kMaxPolicyWeight:
// the features are O(1), so utilities stay finite and the softmax never meets inf − inf.
Result<RevisionPolicies> parse_revision_policies(std::string_view json);
Result<RevisionPolicies> load_revision_policies(const std::string& path);
inline constexpr const char* kRevisionPolicyFormat = "parley-revision-policy-1";
inline constexpr double kMaxPolicyWeight = 1e6;

}  // namespace parley::sim
