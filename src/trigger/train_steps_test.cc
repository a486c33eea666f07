// TriggerModel::train's wiring (src/trigger/train.cc): the option ranges it checks, the
// StandardScaler it fits (worked by hand), and that an epoch of one batch is one step of the
// pieces it is made of, with the options' learning rate, FocusCal parameters and seed.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/trigger_model.h"
#include "trigger/adam.h"
#include "trigger/loss.h"
#include "trigger/mlp.h"
#include "trigger/trigger_test_support.h"

namespace parley {
namespace {

using trigger_test::synthetic_set;

TrainOptions small_options() { return trigger_test::small_options(1); }

std::string train_error(const TrainingSet& set, const TrainOptions& o) {
  const Result<TriggerModel> m = TriggerModel::train(set, o);
  EXPECT_FALSE(m.ok());
  return m.ok() ? std::string() : m.error().message;
}
TEST(TriggerTrainSteps, RejectsOptionsOutOfRangeAndAcceptsTheirEdges) {
  const TrainingSet set = synthetic_set(6, 11, 3);
  auto error_with = [&set](auto change) {
    TrainOptions o = small_options();
    change(o);
    return train_error(set, o);
  };
  auto trains_with = [&set](auto change) {
    TrainOptions o = small_options();
    change(o);
    const Result<TriggerModel> m = TriggerModel::train(set, o);
    return m.ok() ? std::string() : m.error().message;
  };
  EXPECT_NE(error_with([](TrainOptions& o) { o.epochs = 0; }).find("epochs must be at least 1"), std::string::npos);
  EXPECT_EQ(trains_with([](TrainOptions& o) { o.epochs = 1; }), "");
  EXPECT_NE(error_with([](TrainOptions& o) { o.learning_rate = 0.0; }).find("learning rate"), std::string::npos);
  EXPECT_NE(error_with([](TrainOptions& o) { o.learning_rate = -1e-3; }).find("learning rate"), std::string::npos);
  EXPECT_NE(error_with([](TrainOptions& o) { o.learning_rate = std::nan(""); }).find("learning rate"),
            std::string::npos);
  EXPECT_NE(error_with([](TrainOptions& o) { o.learning_rate = HUGE_VAL; }).find("learning rate"),
            std::string::npos);
  EXPECT_EQ(trains_with([](TrainOptions& o) { o.batch_size = 2; }), "");
  EXPECT_NE(error_with([](TrainOptions& o) { o.shape.layers = 0; }).find("at least one layer"), std::string::npos);
  EXPECT_NE(error_with([](TrainOptions& o) { o.shape.hidden = 0; }).find("at least one layer"), std::string::npos);
  EXPECT_EQ(trains_with([](TrainOptions& o) { o.shape = MlpShape{1, 1, 0.0}; }), "");
  EXPECT_NE(error_with([](TrainOptions& o) { o.shape.dropout = 1.0; }).find("dropout"), std::string::npos);
  EXPECT_NE(error_with([](TrainOptions& o) { o.shape.dropout = -0.1; }).find("dropout"), std::string::npos);
  EXPECT_EQ(trains_with([](TrainOptions& o) { o.shape.dropout = 0.0; }), "");
  EXPECT_NE(error_with([](TrainOptions& o) { o.focus.bins = 0; }).find("bin"), std::string::npos);
  EXPECT_EQ(trains_with([](TrainOptions& o) { o.focus.bins = 1; }), "");
  TrainingSet twice = set;
  twice.feature_names[2] = twice.feature_names[1];
  EXPECT_NE(train_error(twice, small_options()).find("feature 'f1' listed twice"), std::string::npos);
  // A label of −1 is as wrong as 2.
  TrainingSet negative = set;
  negative.labels[5] = -1;
  EXPECT_NE(train_error(negative, small_options()).find("label 5 is -1"), std::string::npos);
  TrainingSet infinite = set;
  infinite.rows[0][2] = HUGE_VAL;
  EXPECT_NE(train_error(infinite, small_options()).find("row 0 feature 'f2' is not finite"), std::string::npos);
}

// Five examples, three features with the confidence in the middle. Worked by hand:
//   Hedges          2, 4, 6, 8, 10      mean 6,   population variance (16+4+0+4+16)/5 = 8
//   FinalConfidence .9, .8, .3, .6, .4  mean .6,  variance (.09+.04+.09+0+.04)/5 = .052
//   QuestionTokens  7 five times        mean 7,   variance 0 → scale 1 (a constant keeps scale 1)
TrainingSet five_examples() {
  TrainingSet set;
  set.feature_names = {"Hedges", "FinalConfidence", "QuestionTokens"};
  set.rows = {{2, 0.9, 7}, {4, 0.8, 7}, {6, 0.3, 7}, {8, 0.6, 7}, {10, 0.4, 7}};
  set.labels = {1, 1, 0, 1, 0};
  return set;
}

TEST(TriggerTrainSteps, StandardScalerIsThePopulationMeanAndDeviation) {
  const TrainOptions o = small_options();
  const nlohmann::json scaler = TriggerModel::train(five_examples(), o).value().to_json()["scaler"];
  EXPECT_NEAR(scaler["mean"][0].get<double>(), 6.0, 1e-12);
  EXPECT_NEAR(scaler["mean"][1].get<double>(), 0.6, 1e-12);
  EXPECT_NEAR(scaler["mean"][2].get<double>(), 7.0, 1e-12);
  EXPECT_NEAR(scaler["scale"][0].get<double>(), std::sqrt(8.0), 1e-12);
  EXPECT_NEAR(scaler["scale"][1].get<double>(), std::sqrt(0.052), 1e-12);
  EXPECT_EQ(scaler["scale"][2].get<double>(), 1.0);
}

// What train() does with one batch, composed here from the pieces it is made of (each pinned on
// its own in forward_test.cc, loss_test.cc and adam_test.cc): standardise with the scaler worked
// out above, ℓ_LLM from the raw confidence (eq. 2), a training-mode forward pass that updates the
// running statistics, the loss with the options' FocusCal parameters, backward, one Adam step
// with the options' learning rate from the network drawn from the "trigger-init" stream.
// Five examples in batches of four leave a last batch of one, which joins the first: one step
// per epoch over all five (in shuffled order, which a full batch does not see).
struct OneBatchTraining {
  trigger::Network net;
  std::vector<double> epoch_loss;
};

OneBatchTraining train_by_hand(const TrainOptions& o) {
  const TrainingSet set = five_examples();
  const double mean[] = {6.0, 0.6, 7.0};
  const double scale[] = {std::sqrt(8.0), std::sqrt(0.052), 1.0};
  Eigen::MatrixXd x(3, 5);
  Eigen::RowVectorXd l_llm(5);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) x(j, i) = (set.rows[i][j] - mean[j]) / scale[j];
    l_llm[i] = std::log(set.rows[i][1] / (1.0 - set.rows[i][1]));
  }
  Rng init(HashBuilder().add("trigger-init").add(o.seed).value());
  OneBatchTraining out{trigger::make_network(3, o.shape, init), {}};
  trigger::Network grad = trigger::zeros_like(out.net);
  trigger::Adam adam(out.net, o.learning_rate);
  const LossSpec spec = parse_loss_spec(o.loss, o.focus).value();
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    const trigger::ForwardPass pass = trigger::forward_train(out.net, x, l_llm, nullptr, true);
    const trigger::BatchLoss loss = trigger::batch_loss(spec, o.focus, pass.z, pass.l_u, set.labels);
    trigger::backward(out.net, pass, loss.dz, loss.dl_u, grad);
    adam.step(out.net, grad);
    out.epoch_loss.push_back(loss.value);
  }
  return out;
}

// Agreement to 1e-12, except for the Linear biases in front of BatchNorm and the running means
// that follow them: BatchNorm cancels those biases, their gradient is rounding noise (about 1e-17
// to 1e-16, depending on the order of the batch's columns), and Adam, dividing by √v̂ + 1e-8,
// turns it into steps of up to about lr·1e-8.
void expect_network(const nlohmann::json& got, const trigger::Network& want) {
  auto near = [](const nlohmann::json& j, double v, const std::string& what, double tolerance = 1e-12) {
    EXPECT_NEAR(j.get<double>(), v, tolerance) << what;
  };
  for (std::size_t k = 0; k < want.blocks.size(); ++k) {
    const trigger::DenseBlock& b = want.blocks[k];
    const nlohmann::json& jb = got["blocks"][k];
    for (Eigen::Index r = 0; r < b.weight.rows(); ++r) {
      for (Eigen::Index c = 0; c < b.weight.cols(); ++c) near(jb["weight"][r][c], b.weight(r, c), "weight");
      near(jb["bias"][r], b.bias[r], "bias", 1e-7);
      near(jb["gamma"][r], b.gamma[r], "gamma");
      near(jb["beta"][r], b.beta[r], "beta");
      near(jb["running_mean"][r], b.running_mean[r], "running_mean", 1e-8);
      near(jb["running_var"][r], b.running_var[r], "running_var");
    }
  }
  for (Eigen::Index r = 0; r < want.p_weight.size(); ++r) {
    near(got["p_head"]["weight"][r], want.p_weight[r], "p head");
    near(got["u_head"]["weight"][r], want.u_weight[r], "u head");
  }
  near(got["p_head"]["bias"], want.p_bias, "p bias");
  near(got["u_head"]["bias"], want.u_bias, "u bias");
  near(got["w1"], want.w1, "w1");
  near(got["w2"], want.w2, "w2");
  near(got["epsilon"], want.epsilon, "epsilon");
}

TEST(TriggerTrainSteps, OneBatchPerEpochIsOneAdamStepOnTheWholeSet) {
  TrainOptions o;
  o.shape = MlpShape{2, 4, 0.0};
  o.epochs = 2;
  o.batch_size = 4;
  o.learning_rate = 0.05;
  o.seed = 3;
  o.focus.alpha0 = 3.0;  // not the default: the options' FocusCal parameters reach the loss
  std::vector<EpochLog> log;
  const TriggerModel m = TriggerModel::train(five_examples(), o, &log).value();
  const OneBatchTraining want = train_by_hand(o);
  expect_network(m.to_json()["network"], want.net);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NEAR(log[0].loss, want.epoch_loss[0], 1e-12);
  EXPECT_NEAR(log[1].loss, want.epoch_loss[1], 1e-12);
  // The step moved the network: not a vacuous comparison.
  Rng init(HashBuilder().add("trigger-init").add(o.seed).value());
  const trigger::Network initial = trigger::make_network(3, o.shape, init);
  EXPECT_GT(std::abs(want.net.w1 - initial.w1), 1e-3);
  EXPECT_GT(std::abs(want.net.epsilon - initial.epsilon), 1e-3);
}

}  // namespace
}  // namespace parley
