// Scores of one belief distribution against its gold label (rank, Acc@k, reciprocal rank, Brier)
// and the binned expected calibration error of a population's top-1 confidences. Definitions:
// MACI reading guide A.5 (the paper names the metrics without defining them).

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "parley/stats.h"

namespace parley {
namespace {

void check_belief(std::span<const double> belief, const char* what) {
  if (belief.empty()) throw std::invalid_argument(std::string(what) + ": empty belief");
  for (double p : belief) {
    if (!std::isfinite(p) || p < 0.0)
      throw std::invalid_argument(std::string(what) + ": invalid probability");
  }
}

void check_gold(std::span<const double> belief, std::size_t gold, const char* what) {
  check_belief(belief, what);
  if (gold >= belief.size()) throw std::invalid_argument(std::string(what) + ": gold out of range");
}

}  // namespace

std::int64_t gold_rank(std::span<const double> belief, std::size_t gold) {
  check_gold(belief, gold, "gold_rank");
  const double p = belief[gold];
  std::int64_t rank = 1;
  for (std::size_t y = 0; y < belief.size(); ++y) {
    if (belief[y] > p || (belief[y] == p && y < gold)) ++rank;
  }
  return rank;
}

bool gold_in_top_k(std::span<const double> belief, std::size_t gold, std::int64_t k) {
  return gold_rank(belief, gold) <= k && belief[gold] > 0.0;
}

double reciprocal_rank(std::span<const double> belief, std::size_t gold) {
  const std::int64_t rank = gold_rank(belief, gold);
  return belief[gold] > 0.0 ? 1.0 / static_cast<double>(rank) : 0.0;
}

double brier_score(std::span<const double> belief, std::size_t gold) {
  check_gold(belief, gold, "brier_score");
  double sum = 0.0;
  for (std::size_t y = 0; y < belief.size(); ++y) {
    const double error = belief[y] - (y == gold ? 1.0 : 0.0);
    sum += error * error;
  }
  return sum;
}

TopChoice top_choice(std::span<const double> belief) {
  check_belief(belief, "top_choice");
  TopChoice top{0, belief[0]};
  for (std::size_t y = 1; y < belief.size(); ++y) {
    if (belief[y] > top.confidence) top = {y, belief[y]};
  }
  return top;
}

double top1_brier_score(std::span<const double> belief, std::size_t gold) {
  const double correct = gold_in_top_k(belief, gold, 1) ? 1.0 : 0.0;
  const double error = top_choice(belief).confidence - correct;
  return error * error;
}

int calibration_bin(double confidence, int bins) {
  if (!(confidence > 0.0)) return 0;  // also NaN
  if (confidence >= 1.0) return bins - 1;
  // Below 1, confidence * bins rounds to below bins (it is at most bins - bins * 2^-53, more than
  // half a unit in the last place below bins), so the floor is a bin.
  return static_cast<int>(std::floor(confidence * bins));
}

double binned_calibration_error(std::span<const double> confidences, std::span<const int> correct, int bins) {
  if (confidences.size() != correct.size())
    throw std::invalid_argument("binned_calibration_error: inputs differ in length");
  if (bins < 1) throw std::invalid_argument("binned_calibration_error: bins must be positive");
  if (confidences.empty()) return 0.0;
  // Per bin, the gap sum_i (confidence_i - correct_i) = n_b (conf_b - acc_b).
  std::vector<double> gap(static_cast<std::size_t>(bins), 0.0);
  for (std::size_t i = 0; i < confidences.size(); ++i) {
    if (!(confidences[i] >= 0.0 && confidences[i] <= 1.0))
      throw std::invalid_argument("binned_calibration_error: confidence outside [0, 1]");
    if (correct[i] != 0 && correct[i] != 1)
      throw std::invalid_argument("binned_calibration_error: correct not 0 or 1");
    gap[static_cast<std::size_t>(calibration_bin(confidences[i], bins))] += confidences[i] - correct[i];
  }
  double sum = 0.0;
  for (double g : gap) sum += std::abs(g);
  return sum / static_cast<double>(confidences.size());
}

}  // namespace parley
