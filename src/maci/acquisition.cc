// The acquisition plan's ranking (parley/maci.h): how much an ideal test between two hypotheses
// is expected to reduce the entropy of the final distribution.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "parley/maci.h"

namespace parley::maci {
namespace {

double entropy_bits(const std::vector<double>& p) {
  double h = 0.0;
  for (double x : p)
    if (x > 0.0) h -= x * std::log2(x);
  return h;
}

}  // namespace

double pairwise_test_entropy_reduction(std::span<const double> p, std::size_t first, std::size_t second) {
  if (first >= p.size() || second >= p.size()) throw std::out_of_range("outcome index outside the distribution");
  if (first == second) return 0.0;
  const std::vector<double> prior(p.begin(), p.end());
  double expected_after = 0.0;
  // The two readings: r = 0 ("first"), r = 1 ("second"); the other outcomes give each with ½.
  for (const std::size_t ruled_out : {second, first}) {
    std::vector<double> posterior = prior;
    double reading = 0.0;
    for (std::size_t y = 0; y < posterior.size(); ++y) {
      if (y == ruled_out) {
        posterior[y] = 0.0;
      } else if (y != first && y != second) {
        posterior[y] *= 0.5;
      }
      reading += posterior[y];
    }
    if (reading <= 0.0) continue;
    for (double& x : posterior) x /= reading;
    expected_after += reading * entropy_bits(posterior);
  }
  double total = 0.0;
  for (double x : prior) total += x;
  if (total <= 0.0 || prior[first] + prior[second] <= 0.0) return 0.0;
  return std::max(0.0, entropy_bits(prior) - expected_after);
}

}  // namespace parley::maci
