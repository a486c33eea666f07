#include "llm/simulator_argument.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/hash.h"
#include "parley/labels.h"

namespace parley::sim {
namespace {

// Eq. (18)'s constants (named here, not in the parameter file: every field of a parameter file
// is required, so new fields would break the files already written for parley-simulator-1).
constexpr double kQualityBase = 1.0;        // q₀: σ(1) ≈ 0.73 on a task of average difficulty
constexpr double kQualityDifficulty = 2.0;  // q_d: harder tasks, weaker arguments
constexpr double kAuthorSpread = 0.5;       // s_u
constexpr double kArgumentSpread = 0.75;    // s_i
constexpr double kQualityTruth = 0.75;
// r₀ of eq. (20): a median document of an average task has r = σ(−0.5) ≈ 0.38, so that the
// paper's gate τ_Q = 0.5 and bins (0.5, 0.7) separate documents rather than pass them all.
constexpr double kRelevanceBase = -0.5;
constexpr double kRelevanceGold = 1.5;  // eq. (20): a text that names the gold fits the case      // q_t: arguing for the gold lifts an argument's logit

}  // namespace

double argument_quality(const ArgumentKey& argument, const TaskLatents& task) {
  Rng author(HashBuilder().add("argument_author").add(argument.seed).add(argument.task_id).add(argument.agent).value());
  Rng own(HashBuilder()
              .add("argument")
              .add(argument.seed)
              .add(argument.task_id)
              .add(argument.agent)
              .add(argument.round)
              .add(argument.index)
              .value());
  const double logit = kQualityBase - kQualityDifficulty * (task.difficulty - 0.5) +
                       kQualityTruth * static_cast<double>(argument.stance) + kAuthorSpread * author.normal() +
                       kArgumentSpread * own.normal();
  return logistic(logit);
}

double evidence_relevance(const Task& task, const TaskLatents& latents, std::string_view text) {
  Rng rng(HashBuilder().add("evidence_relevance").add(task.id).add(text).value());
  const double names_gold = text_names(task, text, latents.answers.gold) ? 1.0 : 0.0;
  return logistic(kRelevanceBase - kQualityDifficulty * (latents.difficulty - 0.5) + kRelevanceGold * names_gold +
                  rng.normal());
}

bool text_names(const Task& task, std::string_view text, std::string_view answer) {
  if (task.answer_type == AnswerType::kLabel && task.labels) {
    const std::optional<std::size_t> label = task.labels->find(answer);
    if (!label) return false;
    const std::vector<std::size_t> named = task.labels->named_in(text);
    return std::find(named.begin(), named.end(), *label) != named.end();
  }
  if (task.answer_type == AnswerType::kChoice) {
    const std::optional<std::size_t> option = option_index(answer);
    if (!option || *option >= task.options.size() || task.options[*option].size() < 3) return false;
    const auto lower = [](std::string_view s) {
      std::string out(s);
      std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
      return out;
    };
    return lower(text).find(lower(task.options[*option])) != std::string::npos;
  }
  return false;
}

}  // namespace parley::sim
