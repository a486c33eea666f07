// Sentences, syllables and the two readability scores of iMAD's features (App. A.2, Table 5:
// *_flesch_reading_ease, *_coleman_liau_index). Rules in docs/features.md.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

using features::Char;
using features::char_at;
using features::CharKind;

// Abbreviations after which a '.' does not end a sentence (lower case, inner dots kept).
// Not "no" ("The answer is no.") nor units ("5 mg."), which often end sentences.
constexpr std::array<std::string_view, 34> kAbbreviations = {
    "mr",     "mrs", "ms",   "dr",  "prof", "sr", "jr",   "st",   "vs",  "e.g", "i.e", "cf",
    "approx", "fig", "figs", "inc", "ltd",  "co", "corp", "dept", "mt",  "gen", "gov", "sen",
    "rep",    "al",  "ca",   "vol", "pp",   "eq", "eqs",  "ref",  "u.s", "u.k"};

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_terminator(char c) { return c == '.' || c == '!' || c == '?'; }
bool is_closer(char c) { return c == '"' || c == '\'' || c == ')' || c == ']' || c == '*' || c == '_'; }

// The letters-and-dots word that ends right before byte `dot`, e.g. "e.g" before the final '.'.
std::string_view word_before(std::string_view text, std::size_t dot) {
  std::size_t begin = dot;
  while (begin > 0 && (is_ascii_letter(text[begin - 1]) || text[begin - 1] == '.')) --begin;
  return text.substr(begin, dot - begin);
}

// Whether a single '.' at `dot` is part of an abbreviation ("Dr.", "e.g.") or ends a list
// marker at the start of a sentence ("1. First, ..."), so does not end the sentence.
bool dot_is_not_a_boundary(std::string_view text, std::size_t sentence_begin, std::size_t dot) {
  const std::string word = ascii_lower(word_before(text, dot));
  for (std::string_view abbreviation : kAbbreviations) {
    if (word == abbreviation) return true;
  }
  std::size_t begin = dot;
  while (begin > sentence_begin && is_ascii_digit(text[begin - 1])) --begin;
  if (begin == dot) return false;
  for (std::size_t k = sentence_begin; k < begin; ++k) {
    if (char_at(text, k).kind != CharKind::kSpace && text[k] != '#') return false;
  }
  return true;
}

std::string_view trim(std::string_view piece) {
  std::size_t begin = 0;
  std::size_t end = piece.size();
  while (begin < end && char_at(piece, begin).kind == CharKind::kSpace) begin += char_at(piece, begin).length;
  while (end > begin && (piece[end - 1] == ' ' || piece[end - 1] == '\t' || piece[end - 1] == '\r')) --end;
  return piece.substr(begin, end - begin);
}

bool is_vowel(const std::string& word, std::size_t i) {
  const char c = word[i];
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (c == 'y' && i > 0);
}

struct WordCounts {
  int words = 0;
  int letters = 0;
  int syllables = 0;
};

WordCounts count_words(std::string_view text) {
  WordCounts counts;
  for (const features::TokenSpan& span : features::token_spans(text)) {
    const std::string_view token = text.substr(span.begin, span.end - span.begin);
    if (!features::is_word(token)) continue;
    ++counts.words;
    counts.syllables += syllable_count(token);
    for (std::size_t i = 0; i < token.size();) {
      const Char c = char_at(token, i);
      if (c.kind == CharKind::kLetter) ++counts.letters;
      i += c.length;
    }
  }
  return counts;
}

}  // namespace

std::vector<std::string> sentences(std::string_view text) {
  std::vector<std::string> out;
  const auto emit = [&](std::size_t begin, std::size_t end) {
    const std::string_view piece = trim(text.substr(begin, end - begin));
    if (features::is_word(piece)) out.emplace_back(piece);  // has a letter or digit
  };
  std::size_t begin = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      emit(begin, i);
      begin = ++i;
      continue;
    }
    if (!is_terminator(c)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_terminator(text[end])) ++end;
    const bool single_dot = end == i + 1 && c == '.';
    while (end < text.size() && is_closer(text[end])) ++end;
    // Also closing typographic quotes ” ’ and » after the terminators.
    while (end + 1 < text.size() &&
           ((text.substr(end, 3) == "\xE2\x80\x9D" || text.substr(end, 3) == "\xE2\x80\x99"))) {
      end += 3;
    }
    std::size_t next = end;
    while (next < text.size() && (text[next] == ' ' || text[next] == '\t')) ++next;
    const bool at_space = end == text.size() || char_at(text, end).kind == CharKind::kSpace;
    const bool lower_follows = next < text.size() && text[next] >= 'a' && text[next] <= 'z';
    if (!at_space || lower_follows || (single_dot && dot_is_not_a_boundary(text, begin, i))) {
      i = end;
      continue;
    }
    emit(begin, end);
    begin = i = end;
  }
  emit(begin, text.size());
  return out;
}

int syllable_count(std::string_view token) {
  std::string word;
  for (char c : token) {
    if (is_ascii_letter(c)) word.push_back(static_cast<char>(c | 0x20));
  }
  if (word.empty()) return features::is_word(token) ? 1 : 0;  // numbers, non-Latin words: 1
  int groups = 0;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (is_vowel(word, i) && (i == 0 || !is_vowel(word, i - 1))) ++groups;
  }
  // Silent final e: "make", "likes", "hoped" — when that 'e' is a vowel group of its own.
  const std::size_t n = word.size();
  const auto consonant = [&](std::size_t i) { return !is_vowel(word, i); };
  std::size_t e_at = std::string::npos;  // index of the candidate silent 'e'
  if (n >= 3 && word[n - 1] == 'e') {
    e_at = n - 1;
  } else if (n >= 4 && (word.ends_with("es") || word.ends_with("ed"))) {
    e_at = n - 2;
  }
  if (groups > 1 && e_at != std::string::npos && consonant(e_at - 1)) {
    const char before = word[e_at - 1];
    const bool syllabic_le = before == 'l' && e_at >= 2 && consonant(e_at - 2);
    const bool voiced_es =
        word.ends_with("es") && std::string_view("sxzcgh").find(before) != std::string_view::npos;
    const bool voiced_ed = word.ends_with("ed") && (before == 't' || before == 'd');
    if (!syllabic_le && !voiced_es && !voiced_ed) --groups;
  }
  return groups < 1 ? 1 : groups;
}

// iMAD App. A.2 (ii): Flesch Reading Ease.
double flesch_reading_ease(std::string_view text) {
  const WordCounts counts = count_words(text);
  if (counts.words == 0) return 0.0;
  const double words = counts.words;
  const double sentence_count = static_cast<double>(sentences(text).size());
  return 206.835 - 1.015 * (words / sentence_count) - 84.6 * (counts.syllables / words);
}

// iMAD App. A.2 (ii): Coleman–Liau index.
double coleman_liau_index(std::string_view text) {
  const WordCounts counts = count_words(text);
  if (counts.words == 0) return 0.0;
  const double words = counts.words;
  const double letters_per_100 = 100.0 * counts.letters / words;
  const double sentences_per_100 = 100.0 * static_cast<double>(sentences(text).size()) / words;
  return 0.0588 * letters_per_100 - 0.296 * sentences_per_100 - 15.8;
}

}  // namespace parley
