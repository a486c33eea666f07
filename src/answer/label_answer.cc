// A label task's answer (AnswerType::kLabel): which label a free-text reply settles on. The rule
// is in docs/formats.md, "How replies are read".

#include "answer/label_answer.h"

#include <algorithm>
#include <array>

#include "answer/scan.h"
#include "answer/text_answer.h"
#include "parley/labels.h"

namespace parley::answer_scan {
namespace {

// Words that introduce a label on a line of its own ("Final diagnosis: Dengue fever", "Bias
// rating: -1"), read when no answer statement is there.
constexpr std::array<std::string_view, 6> kLabelMarkers = {"diagnosis", "prediction", "label",
                                                           "rating",    "classification", "verdict"};

// "<words> <marker>: payload" → payload, with `words_before_colon` set to the head's word count;
// "Differential diagnosis:" with nothing after it is no label line.
std::optional<std::string_view> label_line_payload(std::string_view line, int& words_before_colon) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view head = trim_markup(line.substr(0, colon));
  const bool marked = std::any_of(kLabelMarkers.begin(), kLabelMarkers.end(), [head](std::string_view marker) {
    return head.size() >= marker.size() && word_at(head, head.size() - marker.size(), marker);
  });
  if (!marked) return std::nullopt;
  words_before_colon = 1 + static_cast<int>(std::count(head.begin(), head.end(), ' '));
  const std::string_view payload = trim_markup(line.substr(colon + 1));
  if (payload.empty()) return std::nullopt;
  return payload;
}

// The canonical label `written` names: as a whole, else its part before a bracket, comma or
// semicolon ("Dengue fever (most likely)"), else its part after the last colon ("rating: -1").
std::optional<std::string> label_in_set(std::string_view written, const LabelSet& labels) {
  if (auto label = labels.canonical(written)) return label;
  const std::size_t cut = written.find_first_of("(,;");
  if (cut != std::string_view::npos && cut > 0) {
    if (auto label = labels.canonical(written.substr(0, cut))) return label;
  }
  const std::size_t colon = written.rfind(':');
  if (colon != std::string_view::npos) return labels.canonical(written.substr(colon + 1));
  return std::nullopt;
}

// The payload of the last label line of the reply's own words. A head of more than three words
// ("The patient's pain rating: severe") is a sentence, not a label line, unless what follows the
// colon names a label of the set.
std::optional<std::string> last_label_line(const OwnWords& own, const LabelSet* labels) {
  constexpr int kLabelHeadWords = 3;  // "Most likely diagnosis", "Bias rating"
  std::optional<std::string> found;
  for (LineCursor cursor(own.text); cursor.next();) {
    int head_words = 0;
    const auto payload = label_line_payload(cursor.line(), head_words);
    if (!payload) continue;
    if (head_words <= kLabelHeadWords || (labels != nullptr && label_in_set(*payload, *labels))) {
      found = std::string(*payload);
    }
  }
  return found;
}

// A stated label: canonical when the set names it, else (a label outside the set, or no set) its
// label_key, cut before a bracket, comma or semicolon, so that equal names compare equal.
std::optional<std::string> resolve(std::string_view written, const LabelSet* labels) {
  if (labels != nullptr) {
    if (auto label = label_in_set(written, *labels)) return label;
  }
  const std::size_t cut = written.find_first_of("(,;");
  std::string key = label_key(cut != std::string_view::npos && cut > 0 ? written.substr(0, cut) : written);
  if (key.empty()) return std::nullopt;
  return key;
}

}  // namespace

std::optional<std::string> parse_label_answer(std::string_view text, const LabelSet* labels,
                                              std::span<const Belief> beliefs) {
  const OwnWords own = own_words(text);
  const TextReading stated = read_stated_answer(own);
  if (stated.kind == TextReading::kDeclined) return std::nullopt;
  if (stated.kind == TextReading::kFound) return resolve(stated.answer, labels);
  if (auto line = last_label_line(own, labels)) return resolve(*line, labels);
  if (!beliefs.empty()) {
    // The first of the most probable ("Dengue 60%, Chikungunya 25%").
    const auto top = std::max_element(beliefs.begin(), beliefs.end(),
                                      [](const Belief& a, const Belief& b) { return a.probability < b.probability; });
    return resolve(top->label, labels);
  }
  const TextReading last = read_last_line_answer(own);
  if (last.kind != TextReading::kFound) return std::nullopt;
  // With a set, a last line is an answer only when it names a label: a reply's last line is as
  // often a justification as a label.
  if (labels != nullptr) return label_in_set(last.answer, *labels);
  return resolve(last.answer, nullptr);
}

}  // namespace parley::answer_scan
