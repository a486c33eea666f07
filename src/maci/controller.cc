// Algorithm 1's moderator step (MACI App. C, lines 7–16): admission through both gates,
// reliability and weights, the mixture, the signals, the plateau flags, the dials and the stop.

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "parley/maci.h"

namespace parley::maci {
namespace {

double mean_of(const std::vector<double>& values) {
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

std::optional<double> mean_valid(const std::vector<std::optional<double>>& scores) {
  std::vector<double> valid;
  for (const auto& s : scores) {
    if (s) valid.push_back(*s);
  }
  if (valid.empty()) return std::nullopt;
  return mean_of(valid);
}

// D_JS over the agents: eq. (2) for two; for more, the uniformly weighted generalised JSD
// divided by its maximum log2 m, so that it stays in [0, 1] and equals eq. (2) at m = 2 (M-16).
double disagreement_of(const std::vector<Distribution>& beliefs) {
  if (beliefs.size() < 2) return 0.0;
  if (beliefs.size() == 2) return js_divergence(beliefs[0], beliefs[1]);
  const std::vector<double> uniform(beliefs.size(), 1.0 / static_cast<double>(beliefs.size()));
  return generalized_js_divergence(beliefs, uniform) / std::log2(static_cast<double>(beliefs.size()));
}

// A quantity of two agents, averaged over every pair when there are more.
template <typename PairValue>
double mean_over_pairs(std::size_t agents, PairValue pair_value) {
  double total = 0.0;
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < agents; ++a) {
    for (std::size_t b = a + 1; b < agents; ++b) {
      total += pair_value(a, b);
      ++pairs;
    }
  }
  return pairs == 0 ? 0.0 : total / static_cast<double>(pairs);
}

double dispersion_of(const std::vector<Distribution>& beliefs, Dispersion measure) {
  if (measure == Dispersion::kJensenShannon) return disagreement_of(beliefs);
  return mean_over_pairs(beliefs.size(), [&](std::size_t a, std::size_t b) {
    return normalized_wasserstein_ordinal(beliefs[a], beliefs[b]);
  });
}

// Whether `flags` ends with `count` set values.
bool held_for(const std::vector<bool>& flags, int count) {
  if (count <= 0 || flags.size() < static_cast<std::size_t>(count)) return false;
  return std::all_of(flags.end() - count, flags.end(), [](bool f) { return f; });
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kNone: return "";
    case StopReason::kPlateau: return "plateau";
    case StopReason::kStalemate: return "stalemate";
    case StopReason::kRoundCap: return "round_cap";
  }
  return "";
}

Controller::Controller(ControllerSettings settings, const InitialState& initial, const InitialBins& bins)
    : settings_(settings), prototype_(initial.prototype) {
  if (initial.beliefs.empty()) throw std::invalid_argument("MACI needs at least one agent's initial belief");
  const std::size_t outcomes = initial.beliefs.front().size();
  for (const Distribution& p : initial.beliefs) {
    if (p.size() != outcomes) throw std::invalid_argument("initial beliefs over different outcome spaces");
  }
  beliefs_ = initial.beliefs;
  reliability_.assign(beliefs_.size(), settings_.initial_reliability);
  // p^(0): the ω^(0)-weighted mixture, equal weights since every Γ^(0) is the same (App. F).
  const std::vector<double> equal(beliefs_.size(), 1.0 / static_cast<double>(beliefs_.size()));
  mixture_ = maci::mixture(beliefs_, equal);
  initial_disagreement_ = disagreement_of(beliefs_);
  dispersions_.push_back(dispersion_of(beliefs_, settings_.dispersion));
  normalized_entropies_.push_back(normalized_entropy(mixture_));
  // No retrieved evidence reads as low quality (§3.4's bins; our choice).
  contentiousness_ = initial_contentiousness(initial.evidence_quality.value_or(0.0), initial_disagreement_, bins);
  quality_gate_ = settings_.initial_quality_gate;
  crit_gate_ = settings_.initial_crit_gate;
}

void Controller::set_dials(double contentiousness, double quality_gate, double crit_gate) {
  contentiousness_ = std::clamp(contentiousness, 0.0, 1.0);
  quality_gate_ = std::clamp(quality_gate, 0.0, 1.0);
  crit_gate_ = std::clamp(crit_gate, 0.0, 1.0);
}

RoundRecord Controller::observe(const RoundInput& input) {
  if (input.agents.size() != beliefs_.size()) throw std::invalid_argument("agent count changed between rounds");
  for (const AgentRound& agent : input.agents) {
    if (agent.belief.size() != mixture_.size()) throw std::invalid_argument("belief over a different outcome space");
  }
  for (const CandidateArgument& argument : input.arguments) {
    if (argument.agent >= beliefs_.size()) throw std::invalid_argument("argument of an unknown agent");
  }
  const ControllerSettings& s = settings_;
  RoundRecord record;
  record.round = ++round_;
  record.contentiousness = contentiousness_;
  record.quality_gate = quality_gate_;
  record.crit_gate = crit_gate_;

  // Lemma 1's gate (monotone mode): beliefs that would raise the dispersion are discarded.
  std::vector<Distribution> beliefs;
  for (const AgentRound& agent : input.agents) beliefs.push_back(agent.belief);
  if (s.monotone && mean_kl_to_centroid(beliefs) > mean_kl_to_centroid(beliefs_) + s.monotone_tolerance) {
    beliefs = beliefs_;
    record.update_rejected = true;
  }

  // Lines 7–8: the dual gate. E^(t) is the set of distinct spans of the admitted arguments.
  std::vector<std::string> admitted_ids;
  std::vector<std::vector<double>> admitted_spans;
  std::vector<std::vector<double>> agent_scores(beliefs_.size());
  std::vector<std::vector<double>> judge_scores;  // by panel position
  for (const CandidateArgument& argument : input.arguments) {
    ArgumentDecision decision;
    std::vector<std::vector<double>> embeddings;
    for (const CitedSpan& span : argument.spans) embeddings.push_back(span.embedding);
    decision.evidence_score = evidence_quality(embeddings, prototype_);
    decision.crit = mean_valid(argument.judge_scores);
    const bool quality_passes = !s.quality_gate || (decision.evidence_score && *decision.evidence_score >= quality_gate_);
    decision.admitted = quality_passes && decision.crit && *decision.crit >= crit_gate_;
    if (decision.admitted) {
      for (const CitedSpan& span : argument.spans) {
        if (std::find(admitted_ids.begin(), admitted_ids.end(), span.id) != admitted_ids.end()) continue;
        admitted_ids.push_back(span.id);
        admitted_spans.push_back(span.embedding);
      }
    }
    if (judge_scores.size() < argument.judge_scores.size()) judge_scores.resize(argument.judge_scores.size());
    for (std::size_t k = 0; k < argument.judge_scores.size(); ++k) {
      if (!argument.judge_scores[k]) continue;
      agent_scores[argument.agent].push_back(*argument.judge_scores[k]);
      judge_scores[k].push_back(*argument.judge_scores[k]);
    }
    record.arguments.push_back(decision);
  }
  record.evidence_quality = evidence_quality(admitted_spans, prototype_);

  // CRIT^(t) over every (argument, judge) score (App. E.2) and the across-judge variance (E.7).
  std::vector<double> all_scores, judge_means;
  for (const auto& scores : agent_scores) all_scores.insert(all_scores.end(), scores.begin(), scores.end());
  for (const auto& scores : judge_scores) {
    if (!scores.empty()) judge_means.push_back(mean_of(scores));
  }
  if (!all_scores.empty()) record.crit_mean = mean_of(all_scores);
  if (!judge_means.empty()) {
    const double m = mean_of(judge_means);
    double variance = 0.0;
    for (double x : judge_means) variance += (x - m) * (x - m);
    record.crit_variance = variance / static_cast<double>(judge_means.size());
  }

  // Line 9: Γ_u from all of u's candidate arguments (M-14); an agent without scores keeps its Γ.
  for (std::size_t u = 0; u < reliability_.size(); ++u) {
    if (!agent_scores[u].empty()) {
      reliability_[u] = updated_reliability(reliability_[u], mean_of(agent_scores[u]), s.reliability_decay);
    }
  }
  record.reliability = reliability_;
  record.weights = s.uniform_weights ? std::vector<double>(beliefs.size(), 1.0 / static_cast<double>(beliefs.size()))
                                     : reliability_weights(reliability_, s.weight_epsilon);

  // Lines 10–11: mixture, Î, D_JS, D, O.
  record.mixture = maci::mixture(beliefs, record.weights);
  record.information_gain = information_gain(mixture_, record.mixture);
  record.disagreement = disagreement_of(beliefs);
  record.dispersion = dispersion_of(beliefs, s.dispersion);
  record.overlap = mean_over_pairs(input.agents.size(), [&](std::size_t a, std::size_t b) {
    return support_overlap(input.agents[a].cited, input.agents[b].cited);
  });

  // Line 12: ratios and flags.
  information_gains_.push_back(record.information_gain);
  dispersions_.push_back(record.dispersion);
  const double averaged_gain = moving_average(information_gains_, s.window);
  if (s.plateau == PlateauRule::kRelative) {
    record.information_ratio = information_progress(information_gains_, normalized_entropies_, s.window, s.eta);
    record.dispersion_ratio = dispersion_progress(dispersions_, s.window, s.eta);
    record.information_plateau = record.information_ratio < s.relative_information_threshold;
    record.dispersion_plateau = record.dispersion_ratio < s.relative_dispersion_threshold;
  } else {
    // App. D.5: ΔÎ = MA_w(Î^(t)) − MA_w(Î^(t−1)) (undefined, so no plateau, at t = 1) and |ΔD|.
    record.information_ratio = averaged_gains_.empty() ? 0.0 : averaged_gain - averaged_gains_.back();
    record.dispersion_ratio = std::abs(dispersions_.back() - dispersions_[dispersions_.size() - 2]);
    record.information_plateau = !averaged_gains_.empty() && record.information_ratio < s.absolute_information_threshold;
    record.dispersion_plateau = record.dispersion_ratio < s.absolute_dispersion_threshold;
  }
  averaged_gains_.push_back(averaged_gain);
  normalized_entropies_.push_back(normalized_entropy(record.mixture));
  information_flags_.push_back(record.information_plateau);
  dispersion_flags_.push_back(record.dispersion_plateau);

  // Line 13: the dials. The gates tighten on π_I (eq. 9).
  if (s.hold_contentiousness) {
    record.next_contentiousness = contentiousness_;
  } else if (s.schedule == ContentiousnessSchedule::kFixed) {
    record.next_contentiousness =
        std::max(std::min(contentiousness_, s.fixed_floor), contentiousness_ - s.fixed_step);
  } else if (s.plateau == PlateauRule::kRelative) {
    record.next_contentiousness = next_contentiousness(contentiousness_, record.information_plateau,
                                                       record.dispersion_plateau, s.information_step,
                                                       s.dispersion_step);
  } else {
    // Eqs. (11)–(12): each plateau lowers CL once it has held for τ_stop rounds.
    record.next_contentiousness = next_contentiousness(contentiousness_, held_for(information_flags_, s.stop_rounds),
                                                       held_for(dispersion_flags_, s.stop_rounds),
                                                       s.information_step, s.dispersion_step);
  }
  record.next_quality_gate = next_gate(quality_gate_, record.information_plateau, s.gate_step, s.gate_max);
  record.next_crit_gate = next_gate(crit_gate_, record.information_plateau, s.gate_step, s.gate_max);
  // Dials move in steps of 0.1 and 0.2: rounded to 1e-9, 0.8 − 0.2 is 0.6, not 0.6000000000000001.
  for (double* dial : {&record.next_contentiousness, &record.next_quality_gate, &record.next_crit_gate})
    *dial = std::round(*dial * 1e9) / 1e9;

  // Line 14: eq. (10) with the round's own gate τ_Q^(t) (M-12), then the other stops (M-11).
  const bool quality_sufficient =
      !s.quality_gate || (record.evidence_quality && *record.evidence_quality >= record.quality_gate);
  bool plateau = held_for(information_flags_, s.stop_rounds) && held_for(dispersion_flags_, s.stop_rounds) &&
                 quality_sufficient && record.overlap >= s.overlap_floor;
  crit_settled_.push_back(false);
  if (!history_.empty() && record.crit_mean && history_.back().crit_mean && record.crit_variance) {
    crit_settled_.back() = *record.crit_variance < s.crit_variance &&
                           std::abs(*record.crit_mean - *history_.back().crit_mean) < s.crit_change;
  }
  if (s.crit_compound) plateau = plateau && held_for(crit_settled_, 2);
  crit_below_gate_.push_back(!record.crit_mean || *record.crit_mean < record.crit_gate);
  if (plateau) {
    record.stop = StopReason::kPlateau;
  } else if (held_for(crit_below_gate_, s.stalemate_rounds)) {
    record.stop = StopReason::kStalemate;
  } else if (record.round >= s.max_rounds) {
    record.stop = StopReason::kRoundCap;
  }

  beliefs_ = std::move(beliefs);
  mixture_ = record.mixture;
  contentiousness_ = record.next_contentiousness;
  quality_gate_ = record.next_quality_gate;
  crit_gate_ = record.next_crit_gate;
  history_.push_back(record);
  return record;
}

}  // namespace parley::maci
