// Training examples from stored transcripts, the split by task and the offline evaluation
// (parley/trigger.h), on hand-made transcripts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "parley/trigger.h"

namespace parley {
namespace {

using Json = nlohmann::json;

const std::string kSource = PARLEY_SOURCE_DIR;

std::string critique(const std::string& answer, int confidence) {
  return "Initial answer: " + answer +
         "\nInitial reasoning: It follows from the setup.\nInitial confidence: 90%\n"
         "Self-critique: However, another reading is possible.\nCritique confidence: 30%\nFinal answer: " +
         answer + "\nFinal confidence: " + std::to_string(confidence) + "%";
}

Transcript unit(const std::string& protocol, const std::string& task, std::uint64_t seed, bool correct) {
  Transcript t;
  t.protocol = protocol;
  t.task_id = task;
  t.seed = seed;
  t.correct = correct;
  return t;
}

Transcript stage(const std::string& protocol, const std::string& task, std::uint64_t seed, bool stage_correct,
                 int confidence) {
  Transcript t = unit(protocol, task, seed, stage_correct);
  MessageRecord m;
  m.role = "self_critique";
  m.text = critique("B", confidence);
  t.messages.push_back(m);
  t.events.push_back(
      {0, "self_critique", Json{{"question", "Question " + task + "?"}, {"correct", stage_correct}}.dump()});
  return t;
}

TEST(TriggerExamples, OnePerSelfCritiqueWithTheLabelAndMadsOutcome) {
  std::vector<Transcript> run = {stage("self_critique", "t1", 1, true, 90),
                                 stage("self_critique", "t2", 1, false, 60),
                                 stage("self_critique", "t3", 1, false, 70),
                                 unit("mad", "t1", 1, false),
                                 unit("mad", "t2", 1, true),
                                 unit("single", "t3", 1, true)};
  // An imad unit whose first reply was re-asked and whose trigger debated: its own outcome.
  Transcript imad = stage("imad", "t4", 2, false, 50);
  MessageRecord reask;
  reask.role = "self_critique_reask";
  reask.text = critique("C", 40);
  imad.messages.push_back(reask);
  imad.events.push_back({0, "trigger", Json{{"decision", "debate"}}.dump()});
  imad.correct = true;
  run.push_back(imad);

  const FeatureExtractor extractor;
  const auto examples = trigger_examples(run, extractor, "mad");
  ASSERT_EQ(examples.size(), 4u);
  EXPECT_EQ(examples[0].task_id, "t1");
  EXPECT_EQ(examples[0].label, 1);
  EXPECT_EQ(examples[0].mad_correct, false);  // from the mad reference
  EXPECT_EQ(examples[1].label, 0);
  EXPECT_EQ(examples[1].mad_correct, true);
  EXPECT_FALSE(examples[2].mad_correct.has_value());  // no mad on t3 ("single" is not the reference)
  EXPECT_EQ(examples[3].protocol, "imad");
  EXPECT_EQ(examples[3].mad_correct, true);  // its own debate
  // Features of the last reply (the re-ask) and the recorded question.
  EXPECT_EQ(examples[3].features,
            extractor.extract(self_critique_feature_input("Question t4?", critique("C", 40))));
  EXPECT_EQ(examples[0].features.size(), 41u);
  EXPECT_DOUBLE_EQ(examples[1].features[34], 0.60);  // FinalConfidence

  const TrainingSet set = training_set(examples);
  EXPECT_EQ(set.feature_names, trigger_feature_names());
  EXPECT_EQ(set.labels, (std::vector<int>{1, 0, 0, 0}));
}

TEST(TriggerExamples, TheSplitKeepsEverySeedOfATaskOnOneSide) {
  std::vector<TriggerExample> examples;
  for (int task = 0; task < 50; ++task)
    for (std::uint64_t seed = 1; seed <= 3; ++seed)
      examples.push_back({"task" + std::to_string(task), seed, "p", {}, 0, {}});
  const TriggerSplit split = split_by_task(examples, 0.3, 7);
  EXPECT_EQ(split.train.size() + split.validation.size(), 150u);
  EXPECT_GT(split.validation.size(), 15u);  // 0.3 of 50 tasks, give or take chance
  EXPECT_LT(split.validation.size(), 75u);
  std::set<std::string> validation_tasks;
  for (const auto& e : split.validation) validation_tasks.insert(e.task_id);
  for (const auto& e : split.train) EXPECT_EQ(validation_tasks.count(e.task_id), 0u) << e.task_id;
  EXPECT_EQ(split_by_task(examples, 0.3, 7).validation.size(), split.validation.size());  // deterministic
  EXPECT_TRUE(split_by_task(examples, 0.0, 7).validation.empty());
}

TEST(TriggerExamples, TheEvaluationCountsTheModelsDecisions) {
  auto model = TriggerModel::load(kSource + "/examples/imad-trigger.json", &trigger_feature_names());
  ASSERT_TRUE(model) << model.error().message;
  const FeatureExtractor extractor;
  std::vector<TriggerExample> examples;
  const int confidences[] = {99, 95, 30, 20, 60, 10};
  for (int i = 0; i < 6; ++i) {
    TriggerExample e{
        "t" + std::to_string(i),
        1,
        "self_critique",
        extractor.extract(self_critique_feature_input("What is the answer?", critique("B", confidences[i]))),
        i < 2 ? 1 : 0,
        std::nullopt};
    if (i == 2) e.mad_correct = true;
    examples.push_back(e);
  }
  const TriggerEvaluation ev = evaluate_trigger(*model, examples);
  EXPECT_EQ(ev.n, 6);
  EXPECT_EQ(ev.decisions.decisions(), 6);
  std::int64_t debates = 0;
  for (const auto& e : examples) debates += model->trigger(model->score(e.features));
  EXPECT_EQ(ev.decisions.debates(), debates);
  EXPECT_GE(ev.auc, 0.0);
  EXPECT_LE(ev.auc, 1.0);
  // Only t2's outcome is known among the wrong ones: every other wrong one is not judged.
  EXPECT_EQ(ev.decisions.judged(), 3);
}

}  // namespace
}  // namespace parley
