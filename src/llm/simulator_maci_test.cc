// The simulator's MACI agents (docs/simulator.md, "MACI agents", eqs. 20–25): the JSON reply,
// deterministic beliefs, the partisan lean on an ordered scale worked out from eq. (25), and
// citations from the context.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/simulator_maci.h"
#include "llm/simulator_reply.h"
#include "parley/answer.h"
#include "parley/labels.h"
#include "simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::request_for;
using Json = nlohmann::json;

const std::vector<std::string> kScale = {"Negative", "Weakly negative", "Neutral", "Weakly positive", "Positive"};

std::shared_ptr<const Task> tone_task(const std::string& id) {
  auto task = std::make_shared<Task>();
  task->id = id;
  task->question = "Rate the tone of the article.";
  task->answer_type = AnswerType::kLabel;
  task->answer = "Neutral";
  task->labels = std::make_shared<const LabelSet>(LabelSet::make(kScale, {}, true).value());
  return task;
}

std::map<std::string, double> belief_in(const std::string& reply) {
  std::map<std::string, double> out;
  const Json parsed = Json::parse(reply);  // (a temporary in the range-for would die before the loop)
  for (const auto& [label, p] : parsed.at("distribution").items()) out[label] = p.get<double>();
  return out;
}

std::string maci_reply(const std::shared_ptr<const Task>& task, double lean, const std::string& agent = "a1") {
  ChatRequest r = request_for(task, agent, 0, "maci_belief");
  const auto params = default_simulator_params();
  const TaskLatents latents = task_latents(*params, *task);
  return write_maci_reply(*params, params->profiles.at("default"), r, 0.7, latents, false, lean).text;
}

double expected_rating(const std::map<std::string, double>& belief) {
  double total = 0.0, rating = 0.0;
  for (std::size_t i = 0; i < kScale.size(); ++i) {
    const auto it = belief.find(kScale[i]);
    if (it == belief.end()) continue;
    total += it->second;
    rating += it->second * (static_cast<double>(i) - 2.0);
  }
  return rating / total;
}

TEST(SimulatorMaci, ALeanMovesHalfOfEachLabelsMassOneStepTowardsItsEnd) {
  // Eq. (25) with |lean| = 1: p'(i) = ½ p(i) + ½ p(i + 1) towards the low end, the lowest label
  // keeping its own; the reply rounds to two decimals and lists the top 4.
  int checked = 0;
  for (int t = 0; t < 20; ++t) {
    const auto task = tone_task("tone-" + std::to_string(t));
    const auto plain = belief_in(maci_reply(task, 0.0));
    const auto low = belief_in(maci_reply(task, -1.0));
    const auto mass = [&](std::size_t k) { return k < kScale.size() && plain.count(kScale[k]) ? plain.at(kScale[k]) : 0.0; };
    // The labels the leaning reply lists (its top 4; a fifth, the smallest, is left out).
    for (const auto& [label, got] : low) {
      const std::size_t i = static_cast<std::size_t>(std::find(kScale.begin(), kScale.end(), label) - kScale.begin());
      ASSERT_LT(i, kScale.size()) << label;
      const double expected = (i == 0 ? mass(0) : 0.5 * mass(i)) + 0.5 * mass(i + 1);
      EXPECT_NEAR(got, expected, 0.011) << label << " of task " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5);
}

TEST(SimulatorMaci, OppositeLeansPullTheMeanRatingApartAndNoLeanIsTheDefault) {
  double low = 0.0, high = 0.0;
  for (int t = 0; t < 30; ++t) {
    const auto task = tone_task("tone-" + std::to_string(t));
    low += expected_rating(belief_in(maci_reply(task, -0.8)));
    high += expected_rating(belief_in(maci_reply(task, 0.8)));
    EXPECT_EQ(maci_reply(task, 0.0), maci_reply(task, 0.0));  // deterministic
  }
  EXPECT_LT(low / 30, high / 30 - 0.3);
  // A lean does nothing on an unordered set.
  auto unordered = std::make_shared<Task>(*tone_task("u"));
  unordered->labels = std::make_shared<const LabelSet>(LabelSet::make(kScale, {}, false).value());
  EXPECT_EQ(maci_reply(unordered, -1.0), maci_reply(unordered, 0.0));
}

TEST(SimulatorMaci, ALeanAlsoMovesOtherTurnsAnswersOnAnOrderedScale) {
  // Eq. (25) for a single answer: one step towards the lean's end with probability 0.5·|lean|.
  const auto params = default_simulator_params();
  int moved_down = 0, moved_up = 0, tasks = 0;
  for (int t = 0; t < 60; ++t) {
    const auto task = tone_task("single-" + std::to_string(t));
    const ChatRequest r = request_for(task, "a1");
    const TaskLatents latents = task_latents(*params, *task);
    const auto answer_of = [&](double lean) {
      return parse_answer(simulate_reply(*params, params->profiles.at("default"), r, latents, lean).text, *task).value;
    };
    const auto plain = answer_of(0.0), low = answer_of(-1.0), high = answer_of(1.0);
    if (!(plain && low && high)) continue;  // a simulated format error: unparsed alike at any lean
    const auto index = [&](const std::string& a) { return *task->labels->find(a); };
    EXPECT_LE(index(*low), index(*plain));
    EXPECT_GE(index(*high), index(*plain));
    EXPECT_LE(index(*plain) - index(*low), 1u);
    moved_down += index(*low) < index(*plain);
    moved_up += index(*high) > index(*plain);
    ++tasks;
  }
  // About half the answers move (fewer at the scale's ends).
  EXPECT_GT(moved_down, tasks / 5);
  EXPECT_GT(moved_up, tasks / 5);
}

TEST(SimulatorMaci, ArgumentsCiteTheContextAndTheReplyParses) {
  auto task = std::make_shared<Task>(*tone_task("cite"));
  auto docs = std::make_shared<std::vector<EvidenceDocument>>();
  docs->push_back({"article", "The senator's conduct was neutral and routine."});
  docs->push_back({"note", "A second, unrelated note."});
  ChatRequest r = request_for(task, "a1", 1, "maci_argue");
  r.note.evidence = docs;
  r.note.contentiousness = 0.5;
  const auto params = default_simulator_params();
  const std::string text =
      write_maci_reply(*params, params->profiles.at("default"), r, 0.7, task_latents(*params, *task), false).text;
  const Json reply = Json::parse(text);
  ASSERT_EQ(reply["arguments"].size(), 2u);
  for (const Json& a : reply["arguments"]) {
    ASSERT_FALSE(a["evidence"].empty());
    for (const Json& id : a["evidence"]) EXPECT_TRUE(id == "article" || id == "note");
  }
  // A malformed first reply is prose; its re-ask is JSON again.
  const std::string prose =
      write_maci_reply(*params, params->profiles.at("default"), r, 0.7, task_latents(*params, *task), true).text;
  EXPECT_TRUE(Json::parse(prose, nullptr, false).is_discarded());
}

}  // namespace
}  // namespace parley::sim
