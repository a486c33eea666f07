// parse_self_critique: splits a self-critique response into its sections and reads the answers
// and confidences in them with parley's answer parser.
//
// The reply has three blocks, in order: the initial answer (answer, reasoning, confidence), the
// critique (counter-argument, alternative answer, confidence) and the final answer (answer,
// confidence). A section starts at a label:
//   - at the start of a line, after Markdown, list numbering and "Step 2:", followed by ':' or
//     a dash ("**Initial answer:** B", "3. Initial confidence score: 80%", "Initial answer — B"),
//     or alone on its line as a heading ("## Self-Critique", "**Final Answer**");
//   - inside a line after " | " (or " || "), "; ", ", ", ". ", a dash or '(', followed by ':' ("B — ...
//     Confidence: 85%", "Reasoning: ... | Confidence: 90%", "18 (Confidence: 85%)").
// A label is a few words, every one of them a label word (below): it names its section by its
// keywords ("Confidence in the critique", "Initial answer (option letter)", "Counter-argument",
// "Final"), and a label without a block word ("Answer", "Reasoning", "Confidence") belongs to the
// block it appears in — after the critique a bare "Answer" is the final answer. A repeated
// section starts anew (the last one counts).
//
// What a block lacks a labelled section for is read from the block's other text: a confidence
// statement anywhere in it ("Final answer: B (confidence: 88%)"), and for the initial reasoning
// the initial answer section's text after the answer itself ("B — Jupiter is by far the
// largest ..."), when that is at least four words. The final answer as written (AnswerToken's
// text) is the final answer section without that reasoning and without a confidence remark.
#include "parley/self_critique.h"

#include <array>

#include "answer/confidence_scan.h"
#include "answer/number_scan.h"
#include "answer/scan.h"

namespace parley {
namespace {

using answer_scan::at;
using answer_scan::is_alpha;
using answer_scan::is_digit;
using answer_scan::is_space;
using answer_scan::matches_at;
using answer_scan::word_at;

enum class Block { kInitial, kCritique, kFinal };
enum class LabelKind { kAnswer, kAlternative, kReasoning, kConfidence, kCritique };

struct Label {
  LabelKind kind;
  std::optional<Block> block;    // nullopt: the block the label appears in
  bool with_confidence = false;  // "Final answer and confidence": the section holds both
};

// Label keywords.
constexpr std::string_view kInitialWords[] = {"initial", "first", "original", "initially"};
constexpr std::string_view kCritiqueBlockWords[] = {"critique",  "counter",  "counterargument", "counterpoint",
                                                    "objection", "against",  "disagreement",    "negative",
                                                    "devil",     "alternative", "alternate"};
constexpr std::string_view kFinalWords[] = {"final", "finally", "revised", "conclusion", "verdict", "decision"};
constexpr std::string_view kAnswerWords[] = {"answer", "choice", "option", "position", "conclusion", "decision",
                                             "verdict"};
constexpr std::string_view kConfidenceWords[] = {"confidence", "certainty"};
constexpr std::string_view kReasoningWords[] = {"reasoning", "justification", "explanation", "rationale", "reason",
                                                "reasons",   "argument",      "analysis",    "thinking",  "thought"};
constexpr std::string_view kCritiqueWords[] = {"critique",  "counter",      "counterargument", "counterpoint",
                                               "objection", "disagreement", "against",         "devil"};
// Words a label may hold besides keywords; a line with any other word is prose, not a label.
constexpr std::string_view kLabelFillers[] = {
    "the",   "my",     "your",      "our",     "a",      "an",       "in",     "of",       "for",   "on",
    "to",    "and",    "with",      "score",   "level",  "rating",   "value",  "letter",   "percentage",
    "step",  "by",     "chain",     "self",    "strongest", "plausible", "forced", "brief", "short", "detailed",
    "selected", "chosen", "committed", "stated", "s",     "advocate", "this",   "that",     "answers"};
constexpr std::string_view kJoiners[] = {"and", "with"};
constexpr std::size_t kMaxLabelBytes = 80;
constexpr std::size_t kMaxLabelWords = 8;
constexpr std::size_t kMinDerivedReasoningWords = 4;
constexpr std::string_view kDashes[] = {"\xE2\x80\x94", "\xE2\x80\x93"};  // em and en dash
constexpr std::string_view kBullet = "\xE2\x80\xA2";

template <std::size_t N>
bool is_one_of(std::string_view word, const std::string_view (&words)[N]) {
  for (std::string_view w : words) {
    if (word == w) return true;
  }
  return false;
}

// Lower-case words of a label, parentheticals left out ("Initial answer (option letter)").
std::vector<std::string> label_words(std::string_view label) {
  std::vector<std::string> words;
  int depth = 0;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (char c : label) {
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (depth == 0 && is_alpha(c)) {
      word += answer_scan::to_lower(c);
    } else {
      flush();
      if (depth == 0 && c == '&') words.emplace_back("and");
    }
  }
  flush();
  return words;
}

// What `label` names, if it is a label at all.
std::optional<Label> classify(std::string_view label) {
  if (label.size() > kMaxLabelBytes) return std::nullopt;
  const auto words = label_words(label);
  if (words.empty() || words.size() > kMaxLabelWords) return std::nullopt;
  bool initial = false, critique_block = false, final_block = false, alternative = false, critique = false;
  std::optional<std::size_t> answer_at, confidence_at, reasoning_at;
  bool joined = false;
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string& w = words[k];
    const bool keyword = is_one_of(w, kInitialWords) || is_one_of(w, kCritiqueBlockWords) ||
                         is_one_of(w, kFinalWords) || is_one_of(w, kAnswerWords) ||
                         is_one_of(w, kConfidenceWords) || is_one_of(w, kReasoningWords);
    if (!keyword && !is_one_of(w, kLabelFillers)) return std::nullopt;
    initial |= is_one_of(w, kInitialWords);
    critique_block |= is_one_of(w, kCritiqueBlockWords);
    final_block |= is_one_of(w, kFinalWords);
    alternative |= w == "alternative" || w == "alternate";
    critique |= is_one_of(w, kCritiqueWords);
    if (is_one_of(w, kAnswerWords) && !answer_at) answer_at = k;
    if (is_one_of(w, kConfidenceWords) && !confidence_at) confidence_at = k;
    if (is_one_of(w, kReasoningWords) && !reasoning_at) reasoning_at = k;
    joined |= answer_at && !confidence_at && is_one_of(w, kJoiners);
  }
  std::optional<Block> block;
  if (initial) {
    block = Block::kInitial;
  } else if (critique_block) {
    block = Block::kCritique;
  } else if (final_block) {
    block = Block::kFinal;
  }
  if (confidence_at && !(answer_at && *answer_at < *confidence_at && joined)) {
    return Label{LabelKind::kConfidence, block};
  }
  if (answer_at || alternative || (words.size() == 1 && words[0] == "final")) {
    if (alternative || (critique_block && !final_block && !initial)) return Label{LabelKind::kAlternative, Block::kCritique};
    return Label{LabelKind::kAnswer, block, confidence_at.has_value()};
  }
  if (critique) return Label{LabelKind::kCritique, Block::kCritique};
  if (reasoning_at) return Label{LabelKind::kReasoning, block};
  return std::nullopt;
}

bool is_line_markup(char c) { return c == '#' || c == '*' || c == '_' || c == '>' || c == '-' || c == ' ' || c == '\t'; }

std::size_t skip_line_markup(std::string_view line, std::size_t i) {
  for (;;) {
    while (i < line.size() && is_line_markup(line[i])) ++i;
    if (!matches_at(line, i, kBullet)) return i;
    i += kBullet.size();
  }
}

// After list numbering ("3.", "3)") and step labels ("Step 2:", "Part 1 -").
std::size_t skip_numbering(std::string_view line, std::size_t i) {
  std::size_t digits = i;
  while (is_digit(at(line, digits))) ++digits;
  if (digits > i && (at(line, digits) == '.' || at(line, digits) == ')')) i = skip_line_markup(line, digits + 1);
  for (std::string_view word : {"step", "part", "section"}) {
    if (!word_at(line, i, word)) continue;
    std::size_t j = i + word.size();
    while (is_space(at(line, j))) ++j;
    const std::size_t number = j;
    while (is_digit(at(line, j))) ++j;
    if (j == number) break;
    while (is_space(at(line, j)) || at(line, j) == ':' || at(line, j) == '.' || at(line, j) == ')' ||
           at(line, j) == '-') {
      ++j;
    }
    for (std::string_view dash : kDashes) {
      if (matches_at(line, j, dash)) j += dash.size();
    }
    return skip_line_markup(line, j);
  }
  return i;
}

struct FoundLabel {
  Label label;
  std::size_t content = 0;  // where the section's text starts
};

// The position just after a label ending at `i` ("Label**:** text"): past markup and the ':'.
std::size_t after_colon(std::string_view line, std::size_t colon) {
  std::size_t j = colon + 1;
  while (j < line.size() && (line[j] == '*' || line[j] == '_' || is_space(line[j]))) ++j;
  return j;
}

// A label opening `line`, if any.
std::optional<FoundLabel> line_label(std::string_view line) {
  const bool heading = answer_scan::trim(line).starts_with('#');
  const std::size_t start = skip_numbering(line, skip_line_markup(line, 0));
  // The label ends at the first ':' or dash ("Initial answer — B").
  std::size_t end = std::string_view::npos;
  std::size_t content = std::string_view::npos;
  for (std::size_t i = start; i < line.size() && i - start <= kMaxLabelBytes; ++i) {
    if (line[i] == ':') {
      end = i;
      content = after_colon(line, i);
      break;
    }
    const std::string_view* dash = nullptr;
    for (const std::string_view& d : kDashes) {
      if (matches_at(line, i, d)) dash = &d;
    }
    if (dash != nullptr || (line[i] == ' ' && at(line, i + 1) == '-' && at(line, i + 2) == ' ')) {
      end = i;
      content = after_colon(line, i + (dash != nullptr ? dash->size() : 2) - 1);
      break;
    }
  }
  if (end != std::string_view::npos) {
    if (auto label = classify(answer_scan::trim_markup(line.substr(start, end - start)))) {
      return FoundLabel{*label, content};
    }
  }
  // A heading or a bold line that is only a label: "## Self-Critique", "**Final Answer**".
  const std::string_view rest = answer_scan::trim_markup(line.substr(start));
  const bool bold = answer_scan::trim(line).starts_with("**") && answer_scan::trim(line).ends_with("**");
  if (heading || bold || rest.ends_with(':')) {
    std::string_view text = rest;
    while (!text.empty() && (text.back() == ':' || text.back() == '*')) text.remove_suffix(1);
    if (auto label = classify(answer_scan::trim_markup(text))) return FoundLabel{*label, line.size()};
  }
  return std::nullopt;
}

// Separators after which a label may start inside a line.
constexpr std::string_view kInlineSeparators[] = {" || ", " | ", "; ", ", ", ". ", "(", "[", "\xE2\x80\x94",
                                                  "\xE2\x80\x93"};

struct InlineLabel {
  std::size_t cut;  // where the text before the label ends
  FoundLabel found;
};

// The first label inside `text` after one of kInlineSeparators, followed by ':'.
std::optional<InlineLabel> inline_label(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (std::string_view separator : kInlineSeparators) {
      if (!matches_at(text, i, separator)) continue;
      std::size_t j = i + separator.size();
      while (j < text.size() && (is_space(text[j]) || text[j] == '*' || text[j] == '_')) ++j;
      if (!is_alpha(at(text, j))) break;
      const std::size_t colon = text.substr(0, std::min(text.size(), j + kMaxLabelBytes + 1)).find(':', j);
      if (colon == std::string_view::npos) break;
      const std::string_view label = text.substr(j, colon - j);
      if (label.find_first_of(".;!?|(") != std::string_view::npos) break;
      if (auto found = classify(answer_scan::trim_markup(label))) {
        return InlineLabel{i, FoundLabel{*found, after_colon(text, colon)}};
      }
      break;
    }
  }
  return std::nullopt;
}

Block block_of(CritiqueSection s) {
  switch (s) {
    case CritiqueSection::kInitialAnswer:
    case CritiqueSection::kInitialReasoning:
    case CritiqueSection::kInitialConfidence:
      return Block::kInitial;
    case CritiqueSection::kSelfCritique:
    case CritiqueSection::kAlternativeAnswer:
    case CritiqueSection::kCritiqueConfidence:
      return Block::kCritique;
    case CritiqueSection::kFinalAnswer:
    case CritiqueSection::kFinalConfidence:
      return Block::kFinal;
  }
  return Block::kInitial;
}

// The section a label opens in the current block; nullopt when its text continues the current
// section (reasoning written under the critique or the final answer).
std::optional<CritiqueSection> resolve(const Label& label, Block current) {
  const Block block = label.block.value_or(current);
  switch (label.kind) {
    case LabelKind::kAnswer:
      if (block == Block::kInitial) return CritiqueSection::kInitialAnswer;
      if (block == Block::kCritique && label.block) return CritiqueSection::kAlternativeAnswer;
      return CritiqueSection::kFinalAnswer;  // a bare "Answer" after the critique is the final one
    case LabelKind::kAlternative:
      return CritiqueSection::kAlternativeAnswer;
    case LabelKind::kReasoning:
      if (block == Block::kInitial) return CritiqueSection::kInitialReasoning;
      if (block == Block::kCritique && label.block) return CritiqueSection::kSelfCritique;
      return std::nullopt;
    case LabelKind::kConfidence:
      if (block == Block::kInitial) return CritiqueSection::kInitialConfidence;
      if (block == Block::kCritique) return CritiqueSection::kCritiqueConfidence;
      return CritiqueSection::kFinalConfidence;
    case LabelKind::kCritique:
      return CritiqueSection::kSelfCritique;
  }
  return std::nullopt;
}

struct Sections {
  std::array<std::optional<std::string>, kCritiqueSectionLabels.size()> text;
  std::array<bool, kCritiqueSectionLabels.size()> with_confidence{};
  std::optional<CritiqueSection> current;
  Block block = Block::kInitial;

  void open(const Label& label) {
    const auto section = resolve(label, block);
    if (!section) return;  // continues the current section
    current = section;
    block = block_of(*section);
    text[static_cast<std::size_t>(*section)] = std::string();
    with_confidence[static_cast<std::size_t>(*section)] = label.with_confidence;
  }
  void add(std::string_view piece, bool new_line) {
    if (!current) return;  // text before the first label
    std::string& held = *text[static_cast<std::size_t>(*current)];
    if (new_line && !held.empty()) held += '\n';
    held += piece;
  }
  std::string_view get(CritiqueSection s) const {
    const auto& held = text[static_cast<std::size_t>(s)];
    return held ? answer_scan::trim(*held) : std::string_view();
  }
};

// Feeds `content` (a line, or what follows a label on it) to the sections, splitting it at labels
// inside it.
void read_content(Sections& sections, std::string_view content, bool new_line) {
  while (auto found = inline_label(content)) {
    sections.add(content.substr(0, found->cut), new_line);
    new_line = false;
    sections.open(found->found.label);
    content = content.substr(found->found.content);
  }
  sections.add(content, new_line);
}

std::optional<std::string> answer_in(std::string_view section, const Task& task) {
  if (answer_scan::trim(section).empty()) return std::nullopt;
  return parse_answer("Answer: " + std::string(section), task).value;
}

// A confidence section's value: a confidence statement, else the first percentage or number in
// it ("high (about 80%)", "85").
std::optional<double> confidence_in(std::string_view section) {
  section = answer_scan::trim(section);
  if (section.empty()) return std::nullopt;
  if (auto stated = parse_confidence("Confidence: " + std::string(section))) return stated;
  for (auto token = answer_scan::next_number(section, 0); token; token = answer_scan::next_number(section, token->end)) {
    if (token->percent) {
      if (token->value >= 0.0 && token->value <= 100.0) return token->value / 100.0;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

struct AnswerParts {
  std::string_view answer;  // the answer as written: "B (Jupiter)", "18"
  std::string reasoning;    // what follows it, when that is reasoning
};

// An answer section split into the answer itself and what follows it: "B — Jupiter is the
// largest" gives "B" and "Jupiter is the largest". A rest shorter than four words restates the
// answer ("B — Jupiter") and stays part of it; Markdown and a confidence remark are not part of
// the answer.
AnswerParts split_answer(std::string_view section) {
  section = answer_scan::trim(section);
  std::size_t cut = std::string_view::npos;
  std::size_t skip = 0;
  for (std::string_view separator : {"\n", ". ", ", ", "; ", ": ", " - ", "\xE2\x80\x94", "\xE2\x80\x93"}) {
    const std::size_t found = section.find(separator);
    if (found != std::string_view::npos && (cut == std::string_view::npos || found < cut)) {
      cut = found;
      skip = separator.size();
    }
  }
  AnswerParts parts{section, {}};
  if (cut != std::string_view::npos) {
    const std::string_view rest = answer_scan::trim(section.substr(cut + skip));
    std::size_t words = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
      words += answer_scan::is_alnum(rest[i]) && (i == 0 || !answer_scan::is_alnum(rest[i - 1]));
    }
    if (words >= kMinDerivedReasoningWords) parts = {section.substr(0, cut), std::string(rest)};
  }
  parts.answer = answer_scan::trim_markup(answer_scan::before_confidence(parts.answer));
  return parts;
}

}  // namespace

std::string SelfCritique::problem() const {
  if (missing.empty()) return {};
  std::string out = "missing or unreadable sections: ";
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (i) out += ", ";
    out += section_label(missing[i]);
  }
  return out;
}

SelfCritique parse_self_critique(std::string_view reply, const Task& task) {
  const std::string_view text = answer_scan::visible_reply(reply);
  Sections sections;
  for (answer_scan::LineCursor cursor(text); cursor.next();) {
    const std::string_view line = cursor.line();
    if (const auto found = line_label(line)) {
      sections.open(found->label);
      read_content(sections, line.substr(std::min(found->content, line.size())), false);
    } else {
      read_content(sections, line, true);
    }
  }
  using S = CritiqueSection;
  // A block's confidence: its own section, else a statement in the block's other text, and in an
  // "answer and confidence" section the percentage it holds.
  auto block_confidence = [&](S own, std::initializer_list<S> others) -> std::optional<double> {
    if (sections.text[static_cast<std::size_t>(own)]) return confidence_in(sections.get(own));
    std::string block;
    for (S other : others) {
      block += sections.get(other);
      block += '\n';
      if (sections.with_confidence[static_cast<std::size_t>(other)]) {
        if (auto value = confidence_in(sections.get(other))) return value;
      }
    }
    return parse_confidence(block);
  };

  SelfCritique out;
  out.initial.value = answer_in(sections.get(S::kInitialAnswer), task);
  out.initial.confidence = block_confidence(S::kInitialConfidence, {S::kInitialAnswer, S::kInitialReasoning});
  out.initial_reasoning = std::string(sections.get(S::kInitialReasoning));
  if (out.initial_reasoning.empty()) out.initial_reasoning = split_answer(sections.get(S::kInitialAnswer)).reasoning;
  out.critique = std::string(sections.get(S::kSelfCritique));
  out.alternative = answer_in(sections.get(S::kAlternativeAnswer), task);
  out.critique_confidence = block_confidence(S::kCritiqueConfidence, {S::kSelfCritique, S::kAlternativeAnswer});
  out.final.value = answer_in(sections.get(S::kFinalAnswer), task);
  out.final.confidence = block_confidence(S::kFinalConfidence, {S::kFinalAnswer});
  const std::string_view final_section = sections.get(S::kFinalAnswer);
  out.final_answer_text =
      std::string(split_answer(final_section.empty() ? sections.get(S::kInitialAnswer) : final_section).answer);

  if (!out.initial.value) out.missing.push_back(S::kInitialAnswer);
  if (out.initial_reasoning.empty()) out.missing.push_back(S::kInitialReasoning);
  if (!out.initial.confidence) out.missing.push_back(S::kInitialConfidence);
  if (out.critique.empty()) out.missing.push_back(S::kSelfCritique);
  if (!out.critique_confidence) out.missing.push_back(S::kCritiqueConfidence);
  if (!out.final.value) out.missing.push_back(S::kFinalAnswer);
  if (!out.final.confidence) out.missing.push_back(S::kFinalConfidence);

  if (out.final.parsed()) {
    out.answer = out.final;
  } else if (out.initial.parsed()) {
    out.answer = out.initial;
  } else {
    out.answer = parse_answer(text, task);
  }
  return out;
}

}  // namespace parley
