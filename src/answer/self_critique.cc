// parse_self_critique: splits a self-critique response into its labelled sections and reads
// the answers and confidences in them with parley's answer parser.
#include "parley/self_critique.h"

#include "answer/scan.h"

namespace parley {
namespace {

// Extra spellings of a section's label that models use (all compared lower-case).
struct Alias {
  std::string_view text;
  CritiqueSection section;
};
constexpr Alias kAliases[] = {
    {"initial answer", CritiqueSection::kInitialAnswer},
    {"initial reasoning", CritiqueSection::kInitialReasoning},
    {"initial justification", CritiqueSection::kInitialReasoning},
    {"initial confidence", CritiqueSection::kInitialConfidence},
    {"self-critique", CritiqueSection::kSelfCritique},
    {"self critique", CritiqueSection::kSelfCritique},
    {"critique", CritiqueSection::kSelfCritique},
    {"counter-argument", CritiqueSection::kSelfCritique},
    {"alternative answer", CritiqueSection::kAlternativeAnswer},
    {"critique confidence", CritiqueSection::kCritiqueConfidence},
    {"self-critique confidence", CritiqueSection::kCritiqueConfidence},
    {"self critique confidence", CritiqueSection::kCritiqueConfidence},
    {"counter-argument confidence", CritiqueSection::kCritiqueConfidence},
    {"final answer", CritiqueSection::kFinalAnswer},
    {"final confidence", CritiqueSection::kFinalConfidence},
};

bool is_markup(char c) {
  return c == '#' || c == '*' || c == '-' || c == '>' || c == '_' || c == ' ' || c == '\t';
}

// The section a line opens and where its content starts, if it opens one: optional markdown
// and list numbering, a known label (the longest that matches), optional closing markup, ':'.
std::optional<std::pair<CritiqueSection, std::size_t>> section_opened(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && is_markup(line[i])) ++i;
  std::size_t digits = i;
  while (digits < line.size() && answer_scan::is_digit(line[digits])) ++digits;
  if (digits > i && digits < line.size() && (line[digits] == '.' || line[digits] == ')')) {
    i = digits + 1;
    while (i < line.size() && is_markup(line[i])) ++i;
  }
  std::optional<std::pair<CritiqueSection, std::size_t>> best;
  std::size_t best_length = 0;
  for (const Alias& alias : kAliases) {
    if (alias.text.size() <= best_length || line.size() - i < alias.text.size()) continue;
    bool same = true;
    for (std::size_t k = 0; k < alias.text.size() && same; ++k)
      same = answer_scan::to_lower(line[i + k]) == alias.text[k];
    if (!same) continue;
    std::size_t j = i + alias.text.size();
    while (j < line.size() && (line[j] == '*' || line[j] == '_' || line[j] == ' ')) ++j;
    if (j >= line.size() || line[j] != ':') continue;
    ++j;
    while (j < line.size() && (line[j] == '*' || line[j] == '_' || line[j] == ' ' || line[j] == '\t')) ++j;
    best = std::make_pair(alias.section, j);
    best_length = alias.text.size();
  }
  return best;
}

std::optional<std::string> answer_in(std::string_view section, const Task& task) {
  if (answer_scan::trim(section).empty()) return std::nullopt;
  Answer a = parse_answer("Answer: " + std::string(section), task);
  return a.value;
}

std::optional<double> confidence_in(std::string_view section) {
  if (answer_scan::trim(section).empty()) return std::nullopt;
  return parse_confidence("Confidence: " + std::string(answer_scan::trim(section)));
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

SelfCritique parse_self_critique(std::string_view text, const Task& task) {
  // Section texts; a repeated label starts the section anew (the last one counts).
  std::array<std::optional<std::string>, kCritiqueSectionLabels.size()> sections;
  std::optional<std::size_t> current;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    if (const auto opened = section_opened(line)) {
      current = static_cast<std::size_t>(opened->first);
      sections[*current] = std::string(line.substr(opened->second));
    } else if (current) {
      *sections[*current] += "\n";
      *sections[*current] += line;
    }
    begin = end + 1;
  }
  const auto section = [&](CritiqueSection s) -> std::string_view {
    const auto& held = sections[static_cast<std::size_t>(s)];
    return held ? answer_scan::trim(*held) : std::string_view();
  };

  SelfCritique out;
  out.initial.value = answer_in(section(CritiqueSection::kInitialAnswer), task);
  out.initial.confidence = confidence_in(section(CritiqueSection::kInitialConfidence));
  out.initial_reasoning = std::string(section(CritiqueSection::kInitialReasoning));
  out.critique = std::string(section(CritiqueSection::kSelfCritique));
  out.alternative = answer_in(section(CritiqueSection::kAlternativeAnswer), task);
  out.critique_confidence = confidence_in(section(CritiqueSection::kCritiqueConfidence));
  out.final.value = answer_in(section(CritiqueSection::kFinalAnswer), task);
  out.final.confidence = confidence_in(section(CritiqueSection::kFinalConfidence));

  if (!out.initial.value) out.missing.push_back(CritiqueSection::kInitialAnswer);
  if (out.initial_reasoning.empty()) out.missing.push_back(CritiqueSection::kInitialReasoning);
  if (!out.initial.confidence) out.missing.push_back(CritiqueSection::kInitialConfidence);
  if (out.critique.empty()) out.missing.push_back(CritiqueSection::kSelfCritique);
  if (!out.critique_confidence) out.missing.push_back(CritiqueSection::kCritiqueConfidence);
  if (!out.final.value) out.missing.push_back(CritiqueSection::kFinalAnswer);
  if (!out.final.confidence) out.missing.push_back(CritiqueSection::kFinalConfidence);

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
