// PRR, AD and CF of the protocols paper (§2.3, eqs. 1–3) over a debate's transcript.
// Choices where the paper leaves room are listed in docs/protocols.md ("Interaction metrics").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "metrics/turns.h"
#include "metrics/words.h"
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

// The forecast of a turn: the paper's rule, else the turn's canonical answer when it is a
// plain number (numeric tasks).
std::optional<double> forecast_of(const DebateTurn& turn) {
  if (auto value = parse_forecast(turn.text)) return value;
  if (!turn.answer || turn.answer->empty()) return std::nullopt;
  char* end = nullptr;
  const std::string answer(*turn.answer);
  const double value = std::strtod(answer.c_str(), &end);
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
  return interaction_metrics(transcript, agent_turns(transcript));
}

InteractionMetrics interaction_metrics(const Transcript& transcript, const std::vector<DebateTurn>& turns) {
  InteractionMetrics metrics;
  if (turns.empty()) return metrics;

  // PRR, eq. (1): the peer set is every other agent of the debate (also one whose call failed).
  std::set<std::string> names;
  for (const auto& m : transcript.messages)
    if (is_agent_answer_role(m.role)) names.insert(ascii_lower(m.agent));  // judges are not peers
  DebateWords words;
  for (const auto& turn : turns) words.add_turn(turn.text);
  int referencing = 0;
  for (std::size_t t = 0; t < turns.size(); ++t) {
    if (!words.takes_stance(t)) continue;
    const std::string text = ascii_lower(turns[t].text);
    const std::string self = ascii_lower(turns[t].agent);
    referencing += std::any_of(names.begin(), names.end(),
                               [&](const std::string& name) { return name != self && mentions(text, name); });
  }
  metrics.prr = static_cast<double>(referencing) / static_cast<double>(turns.size());

  // AD, eq. (2), over every agent turn of the debate.
  if (turns.size() >= 2) {
    double dissimilarity = 0.0;
    for (std::size_t i = 0; i < words.turns(); ++i)
      for (std::size_t j = i + 1; j < words.turns(); ++j) dissimilarity += 1.0 - words.jaccard(i, j);
    const double n = static_cast<double>(words.turns());
    metrics.ad = 2.0 * dissimilarity / (n * (n - 1.0));
  }

  // CF, eq. (3): each agent's last forecast of the first and of the final round.
  int first_round = turns.front().round, final_round = turns.front().round;
  for (const auto& turn : turns) {
    first_round = std::min(first_round, turn.round);
    final_round = std::max(final_round, turn.round);
  }
  if (final_round > first_round) {
    std::map<std::string_view, double> first, final;
    for (const auto& turn : turns) {
      if (turn.round != first_round && turn.round != final_round) continue;
      auto value = forecast_of(turn);
      if (!value) continue;  // unparsable forecasts are missing (§2.3)
      (turn.round == first_round ? first : final)[turn.agent] = *value;
    }
    if (first.size() >= 2 && final.size() >= 2) {
      auto values = [](const std::map<std::string_view, double>& by_agent) {
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
