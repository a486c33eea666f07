// MACI's measurement signals (§3.2), progress ratios (§3.3) and the dials' update rules.

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "parley/maci.h"

namespace parley::maci {

std::optional<double> evidence_quality(std::span<const std::vector<double>> span_embeddings,
                                       std::span<const double> prototype) {
  std::vector<double> sum(prototype.size(), 0.0);
  std::size_t counted = 0;
  for (const std::vector<double>& span : span_embeddings) {
    if (span.size() != prototype.size()) return std::nullopt;
    double norm = 0.0;
    for (double x : span) norm += x * x;
    if (norm <= 0.0) continue;  // an empty text embeds to zero: it carries no direction
    norm = std::sqrt(norm);
    for (std::size_t i = 0; i < span.size(); ++i) sum[i] += span[i] / norm;
    ++counted;
  }
  if (counted == 0) return std::nullopt;
  // cos(ē, θ) = cos(Σ, θ): the 1/|E| of the mean cancels.
  double dot = 0.0, sum_norm = 0.0, prototype_norm = 0.0;
  for (std::size_t i = 0; i < sum.size(); ++i) {
    dot += sum[i] * prototype[i];
    sum_norm += sum[i] * sum[i];
    prototype_norm += prototype[i] * prototype[i];
  }
  if (sum_norm <= 0.0 || prototype_norm <= 0.0) return std::nullopt;
  return std::clamp(dot / std::sqrt(sum_norm * prototype_norm), -1.0, 1.0);
}

double support_overlap(std::span<const std::string> cited_by_first, std::span<const std::string> cited_by_second) {
  const std::set<std::string> first(cited_by_first.begin(), cited_by_first.end());
  const std::set<std::string> second(cited_by_second.begin(), cited_by_second.end());
  std::size_t shared = 0;
  for (const std::string& id : first) shared += second.count(id);
  const std::size_t either = first.size() + second.size() - shared;
  return either == 0 ? 0.0 : static_cast<double>(shared) / static_cast<double>(either);
}

double crit_composite(const CritScores& scores) {
  return (scores.evidence_support + scores.logical_coherence + scores.query_relevance) / 3.0;
}

double updated_reliability(double reliability, double crit_mean, double decay) {
  return decay * reliability + (1.0 - decay) * crit_mean;
}

std::vector<double> reliability_weights(std::span<const double> reliability, double epsilon) {
  double total = 0.0;
  for (double gamma : reliability) total += gamma + epsilon;
  std::vector<double> weights;
  weights.reserve(reliability.size());
  for (double gamma : reliability) weights.push_back((gamma + epsilon) / total);
  return weights;
}

Distribution mixture(std::span<const Distribution> beliefs, std::span<const double> weights) {
  if (beliefs.size() != weights.size()) throw std::invalid_argument("one weight per belief required");
  if (beliefs.empty()) return {};
  Distribution pooled(beliefs.front().size(), 0.0);
  for (std::size_t u = 0; u < beliefs.size(); ++u) {
    if (beliefs[u].size() != pooled.size()) throw std::invalid_argument("beliefs over different outcome spaces");
    for (std::size_t y = 0; y < pooled.size(); ++y) pooled[y] += weights[u] * beliefs[u][y];
  }
  return pooled;
}

double information_gain(std::span<const double> previous_mixture, std::span<const double> current_mixture) {
  if (previous_mixture.size() != current_mixture.size()) {
    throw std::invalid_argument("mixtures over different outcome spaces");
  }
  return std::max(0.0, normalized_entropy(previous_mixture) - normalized_entropy(current_mixture));
}

double moving_average(std::span<const double> history, int window) {
  const std::size_t count = std::min(history.size(), static_cast<std::size_t>(std::max(window, 1)));
  if (count == 0) return 0.0;
  double sum = 0.0;
  for (std::size_t i = history.size() - count; i < history.size(); ++i) sum += history[i];
  return sum / static_cast<double>(count);
}

double information_progress(std::span<const double> information_gains,
                            std::span<const double> previous_normalized_entropies, int window, double eta) {
  return moving_average(information_gains, window) / (moving_average(previous_normalized_entropies, window) + eta);
}

double dispersion_progress(std::span<const double> dispersions, int window, double eta) {
  if (dispersions.size() < 2) return 0.0;
  std::vector<double> drops;
  drops.reserve(dispersions.size() - 1);
  for (std::size_t t = 1; t < dispersions.size(); ++t) drops.push_back(std::max(0.0, dispersions[t - 1] - dispersions[t]));
  return moving_average(drops, window) / (moving_average(dispersions.first(dispersions.size() - 1), window) + eta);
}

double next_contentiousness(double contentiousness, bool information_plateau, bool dispersion_plateau,
                            double information_step, double dispersion_step) {
  const double lowered = contentiousness - (information_plateau ? information_step : 0.0) -
                         (dispersion_plateau ? dispersion_step : 0.0);
  return std::max(0.0, lowered);
}

double next_gate(double gate, bool information_plateau, double step, double gate_max) {
  return std::min(gate + (information_plateau ? step : 0.0), gate_max);
}

double initial_contentiousness(double initial_quality, double initial_disagreement, const InitialBins& bins) {
  const auto at_least = [&](double x, double threshold) { return bins.strict ? x > threshold : x >= threshold; };
  const auto at_most = [&](double x, double threshold) { return bins.strict ? x < threshold : x <= threshold; };
  if (at_least(initial_quality, bins.quality_high) && at_most(initial_disagreement, bins.disagreement_low)) return 0.7;
  if (at_most(initial_quality, bins.quality_low) && at_least(initial_disagreement, bins.disagreement_high)) return 0.9;
  return 0.8;
}

}  // namespace parley::maci
