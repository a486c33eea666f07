// PRR, AD and CF of the protocols paper (§2.3, eqs. 1–3) over a debate's transcript.
// Choices where the paper leaves room are listed in docs/protocols.md ("Interaction metrics").
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
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

// FNV-1a 64 of a lower-case word, continued one byte at a time.
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t fnv_step(std::uint64_t hash, unsigned char c) { return (hash ^ c) * 0x100000001b3ULL; }
constexpr std::uint64_t fnv(std::string_view word) {
  std::uint64_t hash = kFnvOffset;
  for (char c : word) hash = fnv_step(hash, static_cast<unsigned char>(c));
  return hash;
}

// The stance lexicon {agree, disagree, challenge, support} with its verb inflections.
constexpr std::string_view kStance[] = {
    "agree",     "agrees",     "agreed",     "agreeing",    "disagree",  "disagrees",
    "disagreed", "disagreeing", "challenge", "challenges",  "challenged", "challenging",
    "support",   "supports",   "supported",  "supporting"};

// Whether a word (its hash and its bytes) is a stance word: found by hash, then confirmed.
bool is_stance_word(std::uint64_t hash, std::string_view word) {
  static constexpr auto kHashes = [] {
    std::array<std::uint64_t, std::size(kStance)> hashes{};
    for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = fnv(kStance[i]);
    return hashes;
  }();
  // Most words are turned away by one bit: the low six bits of no stance word's hash.
  static constexpr std::uint64_t kLowBits = [] {
    std::uint64_t bits = 0;
    for (std::uint64_t h : kHashes) bits |= std::uint64_t{1} << (h & 63);
    return bits;
  }();
  if (((kLowBits >> (hash & 63)) & 1) == 0) return false;
  for (std::size_t k = 0; k < kHashes.size(); ++k) {
    if (kHashes[k] != hash || kStance[k].size() != word.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < word.size() && same; ++i) same = ascii_lower_char(word[i]) == kStance[k][i];
    if (same) return true;
  }
  return false;
}

// A turn's words as the metrics read them, from one pass over its text: the words are its
// maximal runs of ASCII letters, compared without case.
struct TurnWords {
  // AD's argument tokens, the distinct words of three or more letters, as sorted 64-bit hashes
  // (FNV-1a of the lower-case word): sets compared by merging. Two distinct words share a hash
  // with probability about 2^-64, far below anything a mean over debates could show.
  std::vector<std::uint64_t> argument_tokens;
  bool takes_stance = false;  // PRR: some word is a stance word
};

TurnWords turn_words(std::string_view text) {
  // Each byte's lower-case letter, or 0 for a byte that is no ASCII letter.
  static constexpr auto kLetters = [] {
    std::array<unsigned char, 256> letters{};
    for (int c = 'a'; c <= 'z'; ++c) letters[static_cast<std::size_t>(c)] = static_cast<unsigned char>(c);
    for (int c = 'A'; c <= 'Z'; ++c) letters[static_cast<std::size_t>(c)] = static_cast<unsigned char>(c - 'A' + 'a');
    return letters;
  }();
  TurnWords out;
  out.argument_tokens.reserve(text.size() / 5);
  for (std::size_t i = 0; i < text.size();) {
    unsigned char letter = kLetters[static_cast<unsigned char>(text[i])];
    if (letter == 0) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    std::uint64_t hash = kFnvOffset;
    do {
      hash = fnv_step(hash, letter);
      letter = ++i < text.size() ? kLetters[static_cast<unsigned char>(text[i])] : 0;
    } while (letter != 0);
    const std::size_t length = i - begin;
    if (length >= 3) out.argument_tokens.push_back(hash);
    if (!out.takes_stance && length >= 5) out.takes_stance = is_stance_word(hash, text.substr(begin, length));
  }
  std::sort(out.argument_tokens.begin(), out.argument_tokens.end());
  out.argument_tokens.erase(std::unique(out.argument_tokens.begin(), out.argument_tokens.end()),
                            out.argument_tokens.end());
  return out;
}

double jaccard(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.empty() && b.empty()) return 1.0;  // two empty arguments are identical
  std::size_t common = 0;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++common, ++i, ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
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
  std::vector<TurnWords> words;
  words.reserve(turns.size());
  for (const auto& turn : turns) words.push_back(turn_words(turn.text));
  int referencing = 0;
  for (std::size_t t = 0; t < turns.size(); ++t) {
    if (!words[t].takes_stance) continue;
    const std::string text = ascii_lower(turns[t].text);
    const std::string self = ascii_lower(turns[t].agent);
    referencing += std::any_of(names.begin(), names.end(),
                               [&](const std::string& name) { return name != self && mentions(text, name); });
  }
  metrics.prr = static_cast<double>(referencing) / static_cast<double>(turns.size());

  // AD, eq. (2), over every agent turn of the debate.
  if (turns.size() >= 2) {
    double dissimilarity = 0.0;
    for (std::size_t i = 0; i < words.size(); ++i)
      for (std::size_t j = i + 1; j < words.size(); ++j)
        dissimilarity += 1.0 - jaccard(words[i].argument_tokens, words[j].argument_tokens);
    const double n = static_cast<double>(words.size());
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
