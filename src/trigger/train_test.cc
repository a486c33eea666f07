// TriggerModel::train: input errors, that a run lowers the loss, that the default 6 × 200
// network separates a separable synthetic set, determinism, and score()'s checks.

#include <chrono>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "parley/trigger_model.h"
#include "trigger/trigger_test_support.h"

namespace parley {
namespace {

using trigger_test::synthetic_set;

TrainOptions small_options() { return trigger_test::small_options(20); }

std::vector<double> scores(const TriggerModel& m, const TrainingSet& set) {
  std::vector<double> out;
  for (const auto& row : set.rows) out.push_back(m.score(row).p);
  return out;
}

std::string train_error(const TrainingSet& set, const TrainOptions& o) {
  const Result<TriggerModel> m = TriggerModel::train(set, o);
  EXPECT_FALSE(m.ok());
  return m.ok() ? std::string() : m.error().message;
}

TEST(TriggerTrain, RejectsBadInput) {
  const TrainingSet good = synthetic_set(10, 1, 4);
  const TrainOptions o = small_options();

  TrainingSet empty = good;
  empty.rows.clear();
  empty.labels.clear();
  EXPECT_NE(train_error(empty, o).find("no examples"), std::string::npos);

  TrainingSet ragged = good;
  ragged.rows[3].pop_back();
  EXPECT_NE(train_error(ragged, o).find("row 3 has 3 values, expected 4"), std::string::npos);

  TrainingSet label = good;
  label.labels[2] = 2;
  EXPECT_NE(train_error(label, o).find("label 2 is 2"), std::string::npos);

  TrainingSet one = good;
  one.rows.resize(1);
  one.labels.resize(1);
  EXPECT_NE(train_error(one, o).find("at least 2 examples"), std::string::npos);

  TrainingSet nan = good;
  nan.rows[4][1] = std::nan("");
  EXPECT_NE(train_error(nan, o).find("not finite"), std::string::npos);

  TrainingSet mismatch = good;
  mismatch.labels.pop_back();
  EXPECT_NE(train_error(mismatch, o).find("10 rows but 9 labels"), std::string::npos);

  TrainOptions conf = o;
  conf.confidence_feature = "Confidence";
  EXPECT_NE(train_error(good, conf).find("confidence feature 'Confidence'"), std::string::npos);

  TrainOptions loss = o;
  loss.loss = "af+hinge";
  EXPECT_NE(train_error(good, loss).find("unknown term 'hinge'"), std::string::npos);

  TrainOptions batch = o;
  batch.batch_size = 1;
  EXPECT_NE(train_error(good, batch).find("batch size"), std::string::npos);

  TrainingSet no_features;
  EXPECT_NE(train_error(no_features, o).find("no features"), std::string::npos);
}

TEST(TriggerTrain, LowersTheLoss) {
  const TrainingSet set = synthetic_set(200, 2);
  std::vector<EpochLog> log;
  const Result<TriggerModel> m = TriggerModel::train(set, small_options(), &log);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(log.size(), 20u);
  EXPECT_EQ(log.front().epoch, 1);
  EXPECT_EQ(log.back().epoch, 20);
  EXPECT_LT(log.back().loss, 0.85 * log.front().loss) << log.front().loss << " → " << log.back().loss;
  EXPECT_EQ(m->loss(), "af+6*cp+5*ece");
}

TEST(TriggerTrain, EveryAblationLossTrains) {
  const TrainingSet set = synthetic_set(100, 3, 6);
  for (const char* spec : {"bce", "mse", "af", "cp", "ece", "af+cp", "af+cp+bce", "af+cp+mse"}) {
    TrainOptions o = small_options();
    o.loss = spec;
    o.epochs = 10;
    std::vector<EpochLog> log;
    const Result<TriggerModel> m = TriggerModel::train(set, o, &log);
    ASSERT_TRUE(m.ok()) << spec;
    EXPECT_TRUE(std::isfinite(log.back().loss)) << spec;
    EXPECT_TRUE(std::isfinite(m->score(set.rows[0]).p)) << spec;
  }
}

// The paper's network (6 × 200, BatchNorm, dropout 0.2, FocusCal, Adam 1e-3) separates a
// linearly separable set (41 features, margin 1). 25 epochs rather than 50 keep the test near 2 s;
// AUC is measured on a held-out set drawn from the same rule (about 0.99 at 10–30 epochs).
TEST(TriggerTrain, DefaultNetworkSeparatesASeparableSet) {
  const TrainingSet train = synthetic_set(400, 4);
  const TrainingSet valid = synthetic_set(300, 5);
  TrainOptions o;
  o.epochs = 25;
  std::vector<EpochLog> log;
  const Result<TriggerModel> m = TriggerModel::train(train, o, &log);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const double auc = roc_auc(scores(m.value(), valid), valid.labels);
  EXPECT_GT(auc, 0.95) << "validation AUC " << auc;
  EXPECT_GT(roc_auc(scores(m.value(), train), train.labels), auc - 0.05);
}

TEST(TriggerTrain, SameSeedSameScores) {
  const TrainingSet set = synthetic_set(150, 6, 8);
  const TriggerModel a = TriggerModel::train(set, small_options()).value();
  const TriggerModel b = TriggerModel::train(set, small_options()).value();
  for (const auto& row : set.rows) {
    EXPECT_EQ(a.score(row).p, b.score(row).p);
    EXPECT_EQ(a.score(row).u, b.score(row).u);
  }
  TrainOptions other = small_options();
  other.seed = 2;
  const TriggerModel c = TriggerModel::train(set, other).value();
  EXPECT_NE(a.score(set.rows[0]).p, c.score(set.rows[0]).p);
}

// 65 examples in batches of 64 leave a last batch of one, which joins the previous batch.
TEST(TriggerTrain, ALastBatchOfOneIsMerged) {
  const TrainingSet set = synthetic_set(65, 7, 5);
  const Result<TriggerModel> m = TriggerModel::train(set, small_options());
  ASSERT_TRUE(m.ok());
  for (const auto& row : set.rows) EXPECT_TRUE(std::isfinite(m->score(row).p));
  const Result<TriggerModel> two = TriggerModel::train(synthetic_set(2, 8, 5), small_options());
  ASSERT_TRUE(two.ok());
}

TEST(TriggerModelScore, ChecksSizeAndTriggersBelowTheThreshold) {
  const TrainingSet set = synthetic_set(40, 9, 5);
  TriggerModel m = TriggerModel::train(set, small_options()).value();
  EXPECT_THROW((void)m.score({0.5, 1.0}), std::invalid_argument);
  EXPECT_THROW((void)m.score(std::vector<double>(6, 0.0)), std::invalid_argument);
  EXPECT_EQ(m.threshold(), 0.7);
  const TriggerScore s = m.score(set.rows[0]);
  EXPECT_GT(s.p, 0.0);
  EXPECT_LT(s.p, 1.0);
  EXPECT_GT(s.u, 0.0);
  EXPECT_LT(s.u, 1.0);
  m.set_threshold(s.p);
  EXPECT_FALSE(m.trigger(s));  // debate only when p < τ
  m.set_threshold(std::nextafter(s.p, 1.0));
  EXPECT_TRUE(m.trigger(s));
  // Copies share the trained network and score alike.
  const TriggerModel copy = m;
  EXPECT_EQ(copy.score(set.rows[1]).p, m.score(set.rows[1]).p);
}

// Not a correctness check: the time for the paper-sized run (1000 × 41, 6 × 200, 50 epochs) is
// printed for docs/trigger.md. Disabled by default; run with --gtest_also_run_disabled_tests.
TEST(TriggerTrain, DISABLED_TimingPaperSizedRun) {
  const TrainingSet set = synthetic_set(1000, 10);
  const auto start = std::chrono::steady_clock::now();
  const Result<TriggerModel> m = TriggerModel::train(set, TrainOptions{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(m.ok());
  std::printf("training 1000 x 41, 6 x 200, 50 epochs: %.2f s\n", seconds);
}

}  // namespace
}  // namespace parley
