// Revision policies: θ = 0 is the simulator itself; exact probabilities, by hand and against
// the draws; gradients against finite differences; policy files.
#include <gtest/gtest.h>

#include <cmath>

#include "llm/simulator_policy.h"
#include "llm/simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::choice_task;

const SimulatorParams& params() { return *default_simulator_params(); }
const SimulatorProfile& profile() { return params().profiles.at("default"); }

// Agent a1's revision in round 1 of debate `seed`, holding `own`, shown a2 and a3.
Annotations revision_note(std::shared_ptr<const Task> task, std::uint64_t seed, const std::string& own,
                          const std::string& peer2, const std::string& peer3) {
  Annotations note;
  note.task = std::move(task);
  note.seed = seed;
  note.agent = "a1";
  note.round = 1;
  note.turn = "revise";
  note.own_previous = own;
  note.shown = {{"a2", peer2, 0.9}, {"a3", peer3, 0.6}};
  return note;
}

TEST(RevisionPolicy, ZeroWeightsDecideExactlyAsTheSimulator) {
  const PolicyWeights zero{};
  for (int i = 0; i < 200; ++i) {
    const auto task = choice_task(i);
    const Annotations note = revision_note(task, 3, "A", "B", "C");
    const TaskLatents latents = task_latents(params(), *task);
    const Decision plain = decide(params(), profile(), note, 0.7, latents);
    const Decision weighted = decide(params(), profile(), note, 0.7, latents, &zero);
    EXPECT_EQ(plain.answer, weighted.answer);
    EXPECT_EQ(plain.confidence, weighted.confidence);
  }
}

// Two options worked by hand: own "A" (base 1, keep 1, support 0.5), peer "B" (base 0,
// support 0.9, plurality 1); keep probability 0.25.
RevisionChoice hand_choice() {
  RevisionChoice choice;
  choice.previous = "A";
  choice.own_correct = true;
  choice.keep_probability = 0.25;
  RevisionOption own{"A", true, 1.0, {0.5, 1.0, 0.0, 0.0}, 0.0};
  RevisionOption peer{"B", false, 0.0, {0.9, 0.0, 0.0, 1.0}, 0.9};
  choice.options = {own, peer};
  return choice;
}

TEST(RevisionPolicy, ProbabilitiesMixTheKeptAnswerAndTheSoftmax) {
  // θ = (1, 0, 0, −2): utilities 1 + 0.5 = 1.5 and 0 + 0.9 − 2 = −1.1.
  const PolicyWeights weights{1.0, 0.0, 0.0, -2.0};
  const double softmax_own = 1.0 / (1.0 + std::exp(-1.1 - 1.5));
  const auto p = choice_probabilities(hand_choice(), weights);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NEAR(p[0], 0.25 + 0.75 * softmax_own, 1e-15);
  EXPECT_NEAR(p[1], 0.75 * (1.0 - softmax_own), 1e-15);
  EXPECT_NEAR(p[0], 0.25 + 0.75 * 0.9308615796566533, 1e-12);  // 1/(1+e^-2.6)
}

// Utilities far from 0 (a policy trained long) neither overflow nor underflow: the softmax is
// taken relative to the largest utility.
TEST(RevisionPolicy, LargeUtilitiesStayFinite) {
  RevisionChoice choice = hand_choice();
  choice.keep_probability = 0.0;
  choice.options[0].base_utility = 800.0;
  choice.options[1].base_utility = 799.0;
  const PolicyWeights zero{};
  const auto p = choice_probabilities(choice, zero);
  EXPECT_NEAR(p[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-12);
  EXPECT_NEAR(p[0] + p[1], 1.0, 1e-12);
  for (const auto& row : choice_probability_gradients(choice, zero))
    for (const double g : row) EXPECT_TRUE(std::isfinite(g));
}

TEST(RevisionPolicy, GradientsMatchFiniteDifferences) {
  const RevisionChoice choice = hand_choice();
  const PolicyWeights weights{0.3, -0.2, 0.0, 0.7};
  const auto gradient = choice_probability_gradients(choice, weights);
  constexpr double h = 1e-6;
  for (std::size_t f = 0; f < kPolicyFeatures; ++f) {
    PolicyWeights up = weights, down = weights;
    up[f] += h;
    down[f] -= h;
    const auto p_up = choice_probabilities(choice, up), p_down = choice_probabilities(choice, down);
    for (std::size_t x = 0; x < 2; ++x)
      EXPECT_NEAR(gradient[x][f], (p_up[x] - p_down[x]) / (2 * h), 1e-8) << "option " << x << " feature " << f;
  }
  // Feature 2 (recognition) is 0 for both options: no gradient.
  EXPECT_EQ(gradient[0][kRecognition], 0.0);
}

// The probabilities are those of the draws: over many debates (seeds) of one observation, the
// decided answers' frequencies match choice_probabilities within 4 standard errors.
TEST(RevisionPolicy, DrawsFollowTheExactProbabilities) {
  const auto task = choice_task(5);  // gold B
  const TaskLatents latents = task_latents(params(), *task);
  const PolicyWeights weights{0.5, -1.0, 0.8, 1.0};
  const Annotations probe = revision_note(task, 0, "A", "B", "C");
  const RevisionChoice choice = revision_choice(params(), profile(), probe, 0.7, latents);
  const auto expected = choice_probabilities(choice, weights);
  std::map<std::string, int> drawn;
  constexpr int kDraws = 20000;
  for (int seed = 1; seed <= kDraws; ++seed)
    ++drawn[decide(params(), profile(), revision_note(task, seed, "A", "B", "C"), 0.7, latents, &weights).answer];
  double total = 0.0;
  for (std::size_t x = 0; x < choice.options.size(); ++x) {
    const double share = static_cast<double>(drawn[choice.options[x].answer]) / kDraws;
    const double standard_error = std::sqrt(expected[x] * (1 - expected[x]) / kDraws);
    EXPECT_NEAR(share, expected[x], 4 * standard_error + 1e-9) << choice.options[x].answer;
    total += expected[x];
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  // A wrong agent's options include the gold (shown by a2) with its recognition feature.
  EXPECT_FALSE(choice.own_correct);
  EXPECT_EQ(choice.keep_probability, 0.0);
  ASSERT_EQ(choice.options.size(), 3u);
  EXPECT_EQ(choice.options[1].answer, "B");
  EXPECT_TRUE(choice.options[1].gold);
  EXPECT_GT(choice.options[1].features[kRecognition], 0.0);
  EXPECT_EQ(choice.options[0].features[kKeep], 1.0);
  // Each of B and C is shown once: both are the plurality.
  EXPECT_EQ(choice.options[1].features[kPlurality], 1.0);
  EXPECT_EQ(choice.options[2].features[kPlurality], 1.0);
  EXPECT_EQ(choice.options[0].features[kPlurality], 0.0);
  EXPECT_NEAR(choice.options[1].features[kSupport], 0.9, 1e-15);
}

TEST(RevisionPolicy, AnUnshownGoldIsAnOptionByReflection) {
  const auto task = choice_task(5);  // gold B, shown by nobody
  const RevisionChoice choice =
      revision_choice(params(), profile(), revision_note(task, 1, "A", "C", "C"), 0.7, task_latents(params(), *task));
  ASSERT_EQ(choice.options.size(), 3u);
  EXPECT_EQ(choice.options[2].answer, "B");
  EXPECT_EQ(choice.options[2].features[kSupport], 0.0);
  EXPECT_EQ(choice.options[1].features[kPlurality], 1.0);  // C, shown twice
}

TEST(RevisionPolicy, FilesAreReadStrictlyAndInstancesTakeTheirAgentsWeights) {
  auto policies = parse_revision_policies(
      R"({"format": "parley-revision-policy-1", "iteration": 3,
          "agents": {"a1": {"support": 0.5, "keep": -1, "recognition": 2, "plurality": 0},
                     "a1#2": {"support": 0, "keep": 0, "recognition": 0, "plurality": 1}}})");
  ASSERT_TRUE(policies) << policies.error().message;
  ASSERT_NE(policies->find("a1"), nullptr);
  EXPECT_EQ((*policies->find("a1"))[kKeep], -1.0);
  EXPECT_EQ(policies->find("a1#1"), policies->find("a1"));
  EXPECT_EQ((*policies->find("a1#2"))[kPlurality], 1.0);
  EXPECT_EQ(policies->find("a2"), nullptr);

  const auto error = [](std::string_view json) {
    auto parsed = parse_revision_policies(json);
    return parsed ? std::string() : parsed.error().message;
  };
  EXPECT_EQ(error("[1]"), "not a JSON object");
  // Malformed JSON is an error naming where, not a throw.
  EXPECT_NE(error("{\"format\": ").find("not valid JSON: "), std::string::npos);
  EXPECT_NE(error(R"({"format": "other", "agents": {}})").find("\"format\" must be"), std::string::npos);
  EXPECT_NE(error(R"({"format": "parley-revision-policy-1", "agents": {}})").find("\"agents\" must be"),
            std::string::npos);
  EXPECT_NE(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 1, "keep": 0,
                      "recognition": 0}}})")
                .find("agent 'a1': \"plurality\" must be a number between -1e+06 and 1e+06"),
            std::string::npos);
  // Hostile values: a format of the wrong type, a number beyond double, a weight whose utility
  // would overflow the softmax.
  EXPECT_NE(error(R"({"format": 1, "agents": {}})").find("\"format\" must be"), std::string::npos);
  const std::string overflow = error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 1e400,
                                        "keep": 0, "recognition": 0, "plurality": 0}}})");
  EXPECT_NE(overflow.find("not valid JSON"), std::string::npos) << overflow;
  EXPECT_NE(overflow.find("overflow"), std::string::npos) << overflow;
  EXPECT_NE(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 1e308, "keep": 0,
                      "recognition": 0, "plurality": 0}}})")
                .find("\"support\" must be a number between"),
            std::string::npos);
  // A key twice in one object, at any level, is refused rather than read as its last value.
  EXPECT_EQ(error(R"({"format": "x", "format": "parley-revision-policy-1", "agents": {}})"),
            "the key \"format\" is given twice in one object");
  EXPECT_EQ(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 0, "keep": 0,
                      "recognition": 0, "plurality": 0}, "a1": {"support": 1, "keep": 0, "recognition": 0,
                      "plurality": 0}}})"),
            "the key \"a1\" is given twice in one object");
  EXPECT_EQ(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 0, "keep": 0.2,
                      "recognition": 0, "plurality": 0, "keep": 5}}})"),
            "the key \"keep\" is given twice in one object");
  // The same key in different objects is not a duplicate.
  EXPECT_EQ(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 0, "keep": 0,
                      "recognition": 0, "plurality": 0}, "a2": {"support": 0, "keep": 0, "recognition": 0,
                      "plurality": 0}}})"),
            "");
  EXPECT_EQ(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": -1e6, "keep": 1e6,
                      "recognition": 0, "plurality": 0}}})"),
            "");
  EXPECT_NE(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 1, "keep": 0,
                      "recognition": 0, "plurality": 0, "temperature": 1}}})")
                .find("unknown weight \"temperature\""),
            std::string::npos);
  EXPECT_NE(error(R"({"format": "parley-revision-policy-1", "agents": {"a1": 3}})").find("expected an object"),
            std::string::npos);
}

}  // namespace
}  // namespace parley::sim
