// UDPO's agent-tailored coefficients (udpo-uncertainty-collapse App. A.2): the base weights from
// Cohen's d (U-8), the warm-up profile (phase 1) and eqs. (10)–(14) (phase 2).
#include <cmath>
#include <string>

#include "parley/udpo.h"
#include "udpo/checks.h"

namespace parley::udpo {
namespace {

// max(d, 0) for a defined d; 0 for an undefined or non-finite one (no evidence for the term).
double positive_part(const std::optional<double>& d) {
  if (!d || !std::isfinite(*d)) return 0.0;
  return std::max(*d, 0.0);
}

// A running mean over the trajectories where a quantity is defined.
struct Mean {
  double sum = 0.0;
  int count = 0;

  void add(const std::optional<double>& value) {
    if (!value) return;
    sum += *value;
    ++count;
  }
  std::optional<double> value() const {
    if (count == 0) return std::nullopt;
    return sum / count;
  }
};

std::optional<double> indicator(const std::optional<bool>& flag) {
  if (!flag) return std::nullopt;
  return *flag ? 1.0 : 0.0;
}

// U-7 for one trajectory: agent i's system-level uncertainty under the reading.
std::optional<double> agent_system_uncertainty(const UncertaintyMetrics& metrics, const AgentUncertainty& agent,
                                               SystemProfile reading) {
  switch (reading) {
    case SystemProfile::kLeaveOneOut:
      return indicator(agent.changes_vote);
    case SystemProfile::kTrajectoryMean:
      return metrics.u_sys;
    case SystemProfile::kMixed:
      if (!agent.changes_vote) return std::nullopt;
      return (*metrics.entropy + *metrics.disagreement + *indicator(agent.changes_vote)) / 3.0;
  }
  return std::nullopt;
}

// base · (1 + κŪ), where a zero base needs no Ū (the term is off for every agent).
double raised(double base, const std::optional<double>& mean, double kappa, std::string_view reason) {
  if (base == 0.0) return 0.0;
  detail::require(mean.has_value(), "agent_coefficients", reason);
  return base * (1.0 + kappa * *mean);
}

}  // namespace

BaseCoefficients base_coefficients(const CohensD& d, double lambda_base, double eta_base) {
  detail::require(detail::non_negative(lambda_base), "base_coefficients", "λ_base must be finite and ≥ 0");
  detail::require(detail::non_negative(eta_base), "base_coefficients", "η_base must be finite and ≥ 0");
  BaseCoefficients base;
  base.lambda = lambda_base;
  base.eta = eta_base;
  const double intra = positive_part(d.u_intra);
  const double inter = positive_part(d.u_inter);
  const double sys = positive_part(d.u_sys);
  const double total = intra + inter + sys;
  if (total > 0.0 && std::isfinite(total)) {  // U-8 reading (a)
    base.alpha = intra / total;
    base.beta = inter / total;
    base.gamma = sys / total;
    base.rule = BaseRule::kCohensD;
  }  // else reading (b): the defaults, 1/3 each
  return base;
}

BaseCoefficients ablated(BaseCoefficients base, Ablation ablation) {
  switch (ablation) {
    case Ablation::kNone:
      break;
    case Ablation::kWithoutIntra:
      base.alpha = 0.0;
      break;
    case Ablation::kWithoutInter:
      base.beta = 0.0;
      break;
    case Ablation::kWithoutSys:
      base.gamma = 0.0;
      break;
  }
  return base;
}

std::vector<AgentProfile> warmup_profile(std::span<const AnswerTrajectory> warmup, const ProfileOptions& options) {
  detail::require(!warmup.empty(), "warmup_profile", "no warm-up trajectory");
  const std::vector<std::string>& agents = warmup.front().agents();
  struct Sums {
    Mean u_intra, u_inter, loo_instability, u_sys;
  };
  std::vector<Sums> sums(agents.size());
  for (const AnswerTrajectory& trajectory : warmup) {
    detail::require(trajectory.agents() == agents, "warmup_profile",
                    "the warm-up trajectories do not have the same agents in the same order");
    const UncertaintyMetrics metrics = uncertainty_metrics(trajectory, options.metrics);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const AgentUncertainty& agent = metrics.agents[i];
      sums[i].u_intra.add(agent.u_intra);
      sums[i].u_inter.add(agent.u_inter);
      sums[i].loo_instability.add(indicator(agent.changes_vote));
      sums[i].u_sys.add(agent_system_uncertainty(metrics, agent, options.system));
    }
  }
  std::vector<AgentProfile> profiles;
  profiles.reserve(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i)
    profiles.push_back(AgentProfile{agents[i], sums[i].u_intra.value(), sums[i].u_inter.value(),
                                    sums[i].loo_instability.value(), sums[i].u_sys.value()});
  return profiles;
}

AgentCoefficients agent_coefficients(const AgentProfile& profile, const BaseCoefficients& base, double kappa) {
  detail::require(detail::non_negative(kappa), "agent_coefficients", "κ must be finite and ≥ 0");
  for (const double coefficient : {base.alpha, base.beta, base.gamma, base.lambda, base.eta})
    detail::require(detail::non_negative(coefficient), "agent_coefficients", "a base coefficient is negative or not finite");
  const std::string agent = " for agent '" + profile.agent + "'";
  AgentCoefficients coefficients;
  coefficients.alpha = raised(base.alpha, profile.u_intra, kappa,  // eq. (10)
                              "Ū_intra is undefined" + agent + " (F needs two debate rounds) but α_base is not 0");
  coefficients.beta = raised(base.beta, profile.u_inter, kappa,  // eq. (11)
                             "Ū_inter is undefined" + agent + " but β_base is not 0");
  coefficients.gamma = raised(base.gamma, profile.loo_instability, kappa,  // eq. (12)
                              "L̄ is undefined" + agent + " but γ_base is not 0");
  const bool needs_system = base.lambda != 0.0 || base.eta != 0.0;
  detail::require(!needs_system || profile.u_sys.has_value(), "agent_coefficients",
                  "Ū_sys is undefined" + agent + " but λ_base or η_base is not 0");
  // Without Ū_sys both bases are 0, and so are λ and η whatever the scale.
  const double system_scale = 1.0 + kappa * profile.u_sys.value_or(0.0);
  coefficients.lambda = base.lambda / system_scale;  // eq. (13)
  coefficients.eta = base.eta * system_scale;        // eq. (14)
  return coefficients;
}

}  // namespace parley::udpo
