// PRR, AD and CF of the protocols paper (§2.3, eqs. 1–3) over a debate's transcript.
// Choices where the paper leaves room are listed in docs/protocols.md ("Interaction metrics").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/text.h"
#include "metrics/turns.h"
#include "parley/answer.h"
#include "parley/metrics.h"

namespace parley {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '#' || c == '_'; }

// `name` occurs in `text` (both lower-case) as a whole name, not inside a longer one.
bool mentions(const std::string& text, const std::string& name) {
  for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_name_char(text[at - 1]);
    const auto end = at + name.size();
    const bool ends = end >= text.size() || !is_name_char(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// Lower-case alphabetic tokens (ASCII letters), any length.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!current.empty()) {
      out.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

// The stance lexicon {agree, disagree, challenge, support} with its verb inflections.
bool is_stance_word(const std::string& word) {
  static const std::set<std::string> kStance = {
      "agree",     "agrees",     "agreed",     "agreeing",    "disagree",  "disagrees",
      "disagreed", "disagreeing", "challenge", "challenges",  "challenged", "challenging",
      "support",   "supports",   "supported",  "supporting"};
  return kStance.count(word) > 0;
}

std::set<std::string> argument_tokens(std::string_view text) {
  std::set<std::string> tokens;
  for (auto& w : words(text))
    if (w.size() >= 3) tokens.insert(std::move(w));
  return tokens;
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;  // two empty arguments are identical
  std::size_t common = 0;
  for (const auto& token : a) common += b.count(token);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

// The forecast of a turn: the paper's rule, else the turn's canonical answer when it is a
// plain number (numeric tasks).
std::optional<double> forecast_of(const DebateTurn& turn) {
  if (auto value = parse_forecast(turn.text)) return value;
  if (!turn.answer || turn.answer->empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(turn.answer->c_str(), &end);
  if (*end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

double population_variance(const std::vector<double>& values) {
  double sum = 0.0;
  for (double v : values) sum += v;
  const double centre = sum / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - centre) * (v - centre);
  return squares / static_cast<double>(values.size());
}

}  // namespace

InteractionMetrics interaction_metrics(const Transcript& transcript) {
  InteractionMetrics metrics;
  const std::vector<DebateTurn> turns = agent_turns(transcript);
  if (turns.empty()) return metrics;

  // PRR, eq. (1): the peer set is every other agent of the debate (also one whose call failed).
  std::set<std::string> names;
  for (const auto& m : transcript.messages)
    if (is_agent_answer_role(m.role)) names.insert(ascii_lower(m.agent));  // judges are not peers
  int referencing = 0;
  for (const auto& turn : turns) {
    const std::string text = ascii_lower(turn.text);
    const std::string self = ascii_lower(turn.agent);
    const bool names_peer = std::any_of(names.begin(), names.end(),
                                        [&](const std::string& name) { return name != self && mentions(text, name); });
    const auto tokens = words(text);
    const bool takes_stance = std::any_of(tokens.begin(), tokens.end(), is_stance_word);
    referencing += names_peer && takes_stance;
  }
  metrics.prr = static_cast<double>(referencing) / static_cast<double>(turns.size());

  // AD, eq. (2), over every agent turn of the debate.
  if (turns.size() >= 2) {
    std::vector<std::set<std::string>> token_sets;
    for (const auto& turn : turns) token_sets.push_back(argument_tokens(turn.text));
    double dissimilarity = 0.0;
    for (std::size_t i = 0; i < token_sets.size(); ++i)
      for (std::size_t j = i + 1; j < token_sets.size(); ++j) dissimilarity += 1.0 - jaccard(token_sets[i], token_sets[j]);
    const double n = static_cast<double>(token_sets.size());
    metrics.ad = 2.0 * dissimilarity / (n * (n - 1.0));
  }

  // CF, eq. (3): each agent's last forecast of the first and of the final round.
  int first_round = turns.front().round, final_round = turns.front().round;
  for (const auto& turn : turns) {
    first_round = std::min(first_round, turn.round);
    final_round = std::max(final_round, turn.round);
  }
  if (final_round > first_round) {
    std::map<std::string, double> first, final;
    for (const auto& turn : turns) {
      if (turn.round != first_round && turn.round != final_round) continue;
      auto value = forecast_of(turn);
      if (!value) continue;  // unparsable forecasts are missing (§2.3)
      (turn.round == first_round ? first : final)[turn.agent] = *value;
    }
    if (first.size() >= 2 && final.size() >= 2) {
      auto values = [](const std::map<std::string, double>& by_agent) {
        std::vector<double> out;
        for (const auto& [agent, v] : by_agent) out.push_back(v);
        return out;
      };
      const double before = population_variance(values(first));
      const double after = population_variance(values(final));
      constexpr double kNearZero = 1e-12;
      if (before < kNearZero) {
        metrics.cf = after < kNearZero ? 1.0 : 0.0;  // the paper's edge-case rule
      } else {
        metrics.cf = std::clamp(1.0 - after / before, 0.0, 1.0);
      }
    }
  }
  return metrics;
}

}  // namespace parley
