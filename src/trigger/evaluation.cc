// Evaluation helpers: ROC AUC (Mann–Whitney form) and expected calibration error (iMAD eq. 8,
// computed by parley/stats.h's binned_calibration_error).

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "parley/stats.h"
#include "parley/trigger_model.h"

namespace parley {
namespace {

void check_inputs(const std::vector<double>& scores, const std::vector<int>& labels, const char* what) {
  if (scores.size() != labels.size())
    throw std::invalid_argument(std::string(what) + ": inputs differ in length");
  for (int y : labels) {
    if (y != 0 && y != 1) throw std::invalid_argument(std::string(what) + ": labels must be 0 or 1");
  }
}

}  // namespace

double roc_auc(const std::vector<double>& scores, const std::vector<int>& labels) {
  check_inputs(scores, labels, "roc_auc");
  const std::size_t n = scores.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&scores](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  // AUC = (R₁ − n₁(n₁+1)/2) / (n₁ n₀), R₁ the rank sum of the positives; tied scores share their
  // mean rank, which counts each tied positive–negative pair as 1/2.
  double rank_sum = 0.0;
  std::size_t positives = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && scores[order[j]] == scores[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k) {
      if (labels[order[k]] == 1) {
        rank_sum += mean_rank;
        ++positives;
      }
    }
    i = j;
  }
  const std::size_t negatives = n - positives;
  if (positives == 0 || negatives == 0) return std::numeric_limits<double>::quiet_NaN();
  const double n1 = static_cast<double>(positives);
  return (rank_sum - n1 * (n1 + 1.0) / 2.0) / (n1 * static_cast<double>(negatives));
}

double expected_calibration_error(const std::vector<double>& scores, const std::vector<int>& labels,
                                  int bins) {
  check_inputs(scores, labels, "expected_calibration_error");
  if (bins < 1) throw std::invalid_argument("expected_calibration_error: bins must be positive");
  // iMAD eq. (8), Σ_b |Σ_{i∈b} p⁽ⁱ⁾ − Σ_{i∈b} y⁽ⁱ⁾| / N, is the binned ECE of parley/stats.h.
  return binned_calibration_error(scores, labels, bins);
}

}  // namespace parley
