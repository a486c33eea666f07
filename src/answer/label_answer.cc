// A label task's answer (AnswerType::kLabel): which label a free-text reply settles on. The rule
// is in docs/formats.md, "How replies are read".

#include "answer/label_answer.h"

#include <algorithm>
#include <array>

#include "answer/confidence_scan.h"
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
std::optional<std::string_view> label_line_payload(std::string_view line, int& words_before_colon,
                                                   std::string_view& head_out) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view head = trim_markup(line.substr(0, colon));
  const bool marked = std::any_of(kLabelMarkers.begin(), kLabelMarkers.end(), [head](std::string_view marker) {
    return head.size() >= marker.size() && word_at(head, head.size() - marker.size(), marker);
  });
  if (!marked) return std::nullopt;
  words_before_colon = 1 + static_cast<int>(std::count(head.begin(), head.end(), ' '));
  head_out = head;
  const std::string_view payload = trim_markup(line.substr(colon + 1));
  if (payload.empty()) return std::nullopt;
  return payload;
}

// The clause a stated label stands in: `written` up to a bracket, comma, semicolon, sentence end
// or dash ("Dengue fever (most likely)", "Dengue fever. Chikungunya is less likely").
std::string_view label_clause(std::string_view written) {
  std::size_t cut = written.find_first_of("(,;");
  for (std::string_view end : {". ", " - ", "\xE2\x80\x93", "\xE2\x80\x94"}) {  // en and em dash
    cut = std::min(cut, written.find(end));
  }
  return cut == 0 || cut == std::string_view::npos ? written : written.substr(0, cut);
}

// Words after which a named label is not the agent's pick ("not dengue", "dengue is unlikely").
bool rejects_a_label(std::string_view written) {
  const std::string key = " " + label_key(written) + " ";
  for (std::string_view word : {" not ", " no ", " unlikely ", " ruled out ", " rule out ", " excluded "}) {
    if (key.find(word) != std::string::npos) return true;
  }
  return false;
}

// The canonical label `written` names: as a whole, else its clause (label_clause), else its part
// after the last colon ("rating: -1"), else the one label it names among other words ("Likely
// dengue fever") unless it rejects one ("not dengue fever").
std::optional<std::string> label_in_set(std::string_view written, const LabelSet& labels) {
  if (auto label = labels.canonical(written)) return label;
  if (auto label = labels.canonical(label_clause(written))) return label;
  const std::size_t colon = written.rfind(':');
  if (colon != std::string_view::npos) {
    if (auto label = labels.canonical(written.substr(colon + 1))) return label;
  }
  const auto named = labels.named_in(written);
  if (named.size() == 1 && !rejects_a_label(written)) return labels.labels()[named.front()];
  return std::nullopt;
}

// Heads of lines that name a label without picking it, or that rate something else.
bool is_other_heading(std::string_view head) {
  for (std::string_view word : {"differential", "alternative", "ruled", "excluded", "less likely", "other",
                                "initial", "secondary", "rejected", "confidence", "certainty", "reliability"}) {
    if (find_ci(head, word) != std::string_view::npos) return true;
  }
  return false;
}

// The payload of the last label line of the reply's own words. A head of more than three words
// ("The patient's pain rating: severe") is a sentence, not a label line, unless what follows the
// colon names a label of the set. Lines that list, rule out or rate something else are none
// (is_other_heading), nor, with a set, is a line naming two labels ("Prediction: Chikungunya
// (30%), Dengue fever (60%)": the distribution decides).
std::optional<std::string> last_label_line(const OwnWords& own, const LabelSet* labels) {
  constexpr int kLabelHeadWords = 3;  // "Most likely diagnosis", "Bias rating"
  std::optional<std::string> found;
  for (LineCursor cursor(own.text); cursor.next();) {
    int head_words = 0;
    std::string_view head;
    const auto payload = label_line_payload(cursor.line(), head_words, head);
    if (!payload || is_other_heading(head) || is_confidence_line(cursor.line())) continue;
    if (labels != nullptr && labels->named_in(*payload).size() > 1) continue;
    if (head_words <= kLabelHeadWords || (labels != nullptr && label_in_set(*payload, *labels))) {
      found = std::string(*payload);
    }
  }
  return found;
}

// A stated label: canonical when the set names it; none when it names two of the set's labels
// with nothing to choose between them ("Dengue fever or Chikungunya"); else (a label outside the
// set, or no set) the label_key of its clause, so that equal names compare equal.
std::optional<std::string> resolve(std::string_view written, const LabelSet* labels) {
  if (labels != nullptr) {
    if (auto label = label_in_set(written, *labels)) return label;
    if (labels->named_in(written).size() > 1) return std::nullopt;
  }
  std::string key = label_key(label_clause(written));
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

namespace parley {

std::optional<std::size_t> read_label_name(std::string_view written, const LabelSet& labels) {
  const auto label = answer_scan::label_in_set(written, labels);
  return label ? labels.find(*label) : std::nullopt;
}

}  // namespace parley
