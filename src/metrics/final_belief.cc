// The debate's final belief and its scores (parley/metrics.h): MACI's Tables 2–4 metrics for any
// protocol, so that a debate and its baselines are scored alike.
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "metrics/turns.h"
#include "parley/metrics.h"
#include "parley/stats.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// The `distribution` of the last `maci_final` event, if any (a ranked list of label, probability).
std::optional<FinalBelief> stated_final_belief(const Transcript& transcript) {
  for (auto e = transcript.events.rbegin(); e != transcript.events.rend(); ++e) {
    if (e->kind != "maci_final") continue;
    const Json detail = Json::parse(e->detail, nullptr, false);
    if (!detail.is_object() || !detail.contains("distribution") || !detail["distribution"].is_array()) return std::nullopt;
    FinalBelief belief;
    belief.source = "maci_final";
    for (const Json& entry : detail["distribution"]) {
      if (!entry.is_object() || !entry.contains("label") || !entry.contains("probability")) continue;
      if (!entry["label"].is_string() || !entry["probability"].is_number()) continue;
      belief.labels.push_back(entry["label"].get<std::string>());
      belief.probabilities.push_back(entry["probability"].get<double>());
    }
    return belief;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FinalBelief> final_belief(const Transcript& transcript) {
  if (auto stated = stated_final_belief(transcript)) return stated;
  // The equal-weight mixture of the last round's answer-bearing turns, each its answer at its
  // stated confidence (1 when it stated none), the rest of its mass unassigned.
  const std::vector<DebateTurn> turns = agent_turns(transcript);
  int last = -1;
  for (const DebateTurn& t : turns)
    if (t.answer) last = std::max(last, t.round);
  if (last < 0) return std::nullopt;
  std::map<std::string, double> mass;
  std::vector<std::string> order;  // first mention
  int voters = 0;
  for (const DebateTurn& t : turns) {
    if (t.round != last) continue;
    ++voters;
    if (!t.answer) continue;
    const std::string answer(*t.answer);
    if (!mass.count(answer)) order.push_back(answer);
    mass[answer] += std::clamp(t.confidence.value_or(1.0), 0.0, 1.0);
  }
  FinalBelief belief;
  belief.source = "final_round";
  for (const std::string& answer : order) {
    belief.labels.push_back(answer);
    belief.probabilities.push_back(mass[answer] / voters);
  }
  return belief;
}

std::optional<BeliefScores> belief_scores(const Transcript& transcript) {
  const std::optional<FinalBelief> belief = final_belief(transcript);
  if (!belief || transcript.gold.empty()) return std::nullopt;
  // Ranks over the listed labels (the gold appended at 0 when unlisted); the Brier score also
  // counts the unassigned rest as one more outcome, never the gold.
  std::vector<double> listed = belief->probabilities;
  std::size_t gold = listed.size();
  for (std::size_t i = 0; i < belief->labels.size(); ++i)
    if (belief->labels[i] == transcript.gold) gold = i;
  if (gold == listed.size()) listed.push_back(0.0);
  double total = 0.0;
  for (double x : belief->probabilities) total += x;
  std::vector<double> with_rest = listed;
  with_rest.push_back(std::max(0.0, 1.0 - total));
  BeliefScores scores;
  scores.acc_at_3 = gold_in_top_k(listed, gold, 3);
  scores.reciprocal_rank = reciprocal_rank(listed, gold);
  scores.gold_probability = listed[gold];
  scores.brier = brier_score(with_rest, gold);
  double confidence = 0.0;
  if (transcript.final_answer)
    for (std::size_t i = 0; i < belief->labels.size(); ++i)
      if (belief->labels[i] == *transcript.final_answer) confidence = belief->probabilities[i];
  scores.confidence = std::clamp(confidence, 0.0, 1.0);
  return scores;
}

std::optional<ScaleScores> scale_scores(const Transcript& transcript, const LabelSet& labels) {
  if (!labels.ordered() || labels.size() < 2) return std::nullopt;
  const std::optional<FinalBelief> belief = final_belief(transcript);
  const std::optional<std::size_t> gold = labels.find(transcript.gold);
  if (!belief || !gold) return std::nullopt;
  std::vector<double> scale(labels.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < belief->labels.size(); ++i) {
    if (const auto at = labels.find(belief->labels[i])) {
      scale[*at] += belief->probabilities[i];
      total += belief->probabilities[i];
    }
  }
  if (total <= 0.0) return std::nullopt;
  const double centre = static_cast<double>(labels.size() - 1) / 2.0;
  ScaleScores scores;
  double expected = 0.0, cumulative = 0.0, distance = 0.0;
  for (std::size_t k = 0; k < scale.size(); ++k) {
    scale[k] /= total;
    expected += scale[k] * (static_cast<double>(k) - centre);
    cumulative += scale[k];
    if (k + 1 < scale.size()) distance += std::fabs(cumulative - (k >= *gold ? 1.0 : 0.0));
  }
  scores.centrist_deviation = std::fabs(expected);
  scores.gold_distance = distance / static_cast<double>(scale.size() - 1);
  return scores;
}

}  // namespace parley
