// What a MACI debate hands back besides its answer (protocols/maci_outcome.h).
#include "protocols/maci_outcome.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "parley/labels.h"

namespace parley::maci {
namespace {

using Json = nlohmann::json;
constexpr std::size_t kPlanHypotheses = 3;

}  // namespace

// M-17's reporting metrics, as labelled choices (docs/protocols.md, "maci"): the first two
// agents' final beliefs compared (on δ-smoothed beliefs, so that KL stays finite), the
// information the agent carries about the answer under the final weights. (The ordered scale's
// deviations are every protocol's: src/metrics/final_belief.cc.)
Json final_scores(const Task& task, const Controller& controller) {
  constexpr double kSmoothing = 1e-6;
  Json scores = Json::object();
  scores["rounds"] = controller.history().size();
  const auto& beliefs = controller.beliefs();
  const bool ordered = task.labels && task.labels->ordered();
  if (beliefs.size() >= 2) {
    const Distribution first = smoothed(beliefs[0], kSmoothing);
    const Distribution second = smoothed(beliefs[1], kSmoothing);
    scores["agents_kl_first_second"] = kl_divergence_bits(first, second);
    scores["agents_kl_second_first"] = kl_divergence_bits(second, first);
    scores["agents_cross_entropy"] = normalized_cross_entropy(beliefs[0], beliefs[1], kSmoothing);
    scores["agents_distance"] = ordered ? normalized_wasserstein_ordinal(beliefs[0], beliefs[1])
                                        : total_variation(beliefs[0], beliefs[1]);
    const std::vector<double> weights = controller.history().empty()
                                            ? std::vector<double>(beliefs.size(), 1.0 / beliefs.size())
                                            : controller.history().back().weights;
    scores["agents_mutual_information"] = generalized_js_divergence(beliefs, weights);
  }
  return scores;
}

// The plan: the tests that best separate the leading hypotheses, ranked by expected entropy
// reduction of p (pairwise_test_entropy_reduction), each with a retrieval query; then the
// agents' own proposals from their last valid replies, merged.
Json acquisition_plan(const Distribution& p, const std::vector<Proposals>& proposals, const OutcomeSpace& space) {
  std::vector<std::size_t> leading;
  for (std::size_t i = 0; i + 1 < p.size(); ++i)
    if (p[i] > 0.0) leading.push_back(i);
  std::stable_sort(leading.begin(), leading.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  if (leading.size() > kPlanHypotheses) leading.resize(kPlanHypotheses);
  struct Test {
    std::size_t first, second;
    double reduction;
  };
  std::vector<Test> tests;
  for (std::size_t a = 0; a < leading.size(); ++a)
    for (std::size_t b = a + 1; b < leading.size(); ++b)
      tests.push_back({leading[a], leading[b], pairwise_test_entropy_reduction(p, leading[a], leading[b])});
  std::stable_sort(tests.begin(), tests.end(), [](const Test& x, const Test& y) { return x.reduction > y.reduction; });
  Json discriminate = Json::array();
  for (const Test& t : tests)
    discriminate.push_back({{"between", {space.name(t.first), space.name(t.second)}},
                            {"expected_entropy_reduction_bits", t.reduction},
                            {"retrieval_query", space.name(t.first) + " vs " + space.name(t.second) + " differential"}});
  Json proposed = Json::array();
  std::map<std::string, std::size_t> seen;  // "kind\ntext" lower-cased → its entry
  for (const Proposals& agent : proposals) {
    for (const PlanItem& item : agent.items) {
      std::string key = item.kind + "\n" + item.text;
      std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
      auto [at, fresh] = seen.try_emplace(key, proposed.size());
      if (fresh) proposed.push_back({{"kind", item.kind}, {"item", item.text}, {"proposed_by", Json::array()}});
      proposed[at->second]["proposed_by"].push_back(agent.agent);
    }
  }
  Json hypotheses = Json::array();
  for (std::size_t i : leading) hypotheses.push_back({{"label", space.name(i)}, {"probability", p[i]}});
  return Json{{"hypotheses", hypotheses}, {"discriminating_tests", discriminate}, {"proposed", proposed}};
}

}  // namespace parley::maci
