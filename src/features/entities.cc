// Named-entity count of the question (iMAD App. A.2, Table 5: question_named_entity_count) by a
// heuristic imitating OntoNotes categories, since Debian packages no NER model usable from C++:
// capitalised runs (PERSON/ORG/GPE/...), dates (DATE) and numbers with their unit or sign
// (CARDINAL/PERCENT/MONEY/QUANTITY). Rules in docs/features.md.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

bool in_list(const std::string& word, std::initializer_list<std::string_view> list) {
  for (std::string_view entry : list) {
    if (word == entry) return true;
  }
  return false;
}

// Words that are capitalised because they start a sentence or a labelled line, not because they
// name something. Stripped from the front of a capitalised run.
bool is_common_word(const std::string& lower) {
  return in_list(lower,
                 {"the",         "a",          "an",       "this",     "that",    "these",       "those",
                  "it",          "its",        "he",       "she",      "they",    "we",          "you",
                  "i",           "my",         "our",      "your",     "his",     "her",         "their",
                  "them",        "there",      "here",     "what",     "which",   "who",         "whom",
                  "whose",       "where",      "when",     "why",      "how",     "is",          "are",
                  "was",         "were",       "be",       "been",     "do",      "does",        "did",
                  "can",         "could",      "would",    "should",   "will",    "shall",       "may",
                  "might",       "must",       "have",     "has",      "had",     "if",          "in",
                  "on",          "at",         "for",      "from",     "by",      "with",        "to",
                  "of",          "as",         "and",      "but",      "or",      "nor",         "so",
                  "because",     "since",      "although", "though",   "however", "therefore",   "thus",
                  "hence",       "also",       "then",     "yes",      "no",      "not",         "all",
                  "some",        "many",       "most",     "each",     "every",   "both",        "either",
                  "neither",     "any",        "let",      "given",    "after",   "before",      "while",
                  "during",      "under",      "over",     "into",     "upon",    "about",       "option",
                  "options",     "answer",     "answers",  "step",     "final",   "confidence",  "reasoning",
                  "explanation", "critique",   "note",     "first",    "second",  "third",       "finally",
                  "overall",     "conclusion", "summary",  "question", "initial", "alternative", "rationale",
                  "correct",     "incorrect",  "true",     "false",    "one",     "two",         "three",
                  "other",       "another",    "such",     "only",     "even"});
}

bool looks_inflected(const std::string& lower) {  // "Considering", "Clearly", "Based": not names
  return lower.size() > 4 && (lower.ends_with("ing") || lower.ends_with("ly") || lower.ends_with("ed"));
}

bool is_month(const std::string& lower) {
  return in_list(lower, {"january", "february", "march", "april", "may", "june", "july", "august",
                         "september", "october", "november", "december"});
}

bool is_weekday(const std::string& lower) {
  return in_list(lower, {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"});
}

bool is_unit(const std::string& lower) {
  return in_list(
      lower,
      {"%",        "percent", "mg",      "g",      "kg",      "mcg",    "km",       "m",       "cm",
       "mm",       "nm",      "ml",      "l",      "mmhg",    "°",      "degrees",  "c",       "f",
       "k",        "years",   "year",    "months", "month",   "weeks",  "week",     "days",    "day",
       "hours",    "hour",    "minutes", "minute", "seconds", "second", "s",        "dollars", "euros",
       "cents",    "meters",  "metres",  "miles",  "feet",    "inches", "pounds",   "lb",      "lbs",
       "grams",    "liters",  "litres",  "mol",    "moles",   "kcal",   "calories", "million", "billion",
       "thousand", "hundred", "times",   "people", "units",   "bpm",    "mph",      "kph",     "hz",
       "khz",      "mhz",     "ghz",     "v",      "w",       "kw",     "j",        "n",       "pa",
       "kpa",      "atm"});
}

bool is_currency_sign(std::string_view token) {
  return token == "$" || token == "\xE2\x82\xAC" || token == "\xC2\xA3" || token == "\xC2\xA5";  // $ € £ ¥
}

bool starts_with_digit(std::string_view token) {
  return !token.empty() && token[0] >= '0' && token[0] <= '9';
}

bool all_digits(std::string_view token) {
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return !token.empty();
}

bool is_year(std::string_view token) {  // 1000–2099, or a decade "1990s"
  if (token.size() == 5 && token.back() == 's') token.remove_suffix(1);
  if (token.size() != 4 || !all_digits(token)) return false;
  return token[0] == '1' || (token[0] == '2' && token[1] == '0');
}

bool is_day_number(std::string_view token) {  // 1–31, optionally "1st", "22nd", "3rd", "12th"
  std::size_t digits = 0;
  while (digits < token.size() && token[digits] >= '0' && token[digits] <= '9') ++digits;
  if (digits == 0 || digits > 2) return false;
  const std::string_view suffix = token.substr(digits);
  if (!(suffix.empty() || suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th")) return false;
  const int day = std::stoi(std::string(token.substr(0, digits)));
  return day >= 1 && day <= 31;
}

bool is_capitalised(std::string_view token) {
  // A single capital letter ("I", option labels "B", initials) never counts as a name word.
  return token.size() >= 2 && token[0] >= 'A' && token[0] <= 'Z';
}

bool is_acronym(std::string_view token) {  // "WHO", "US": never a common word
  return token.size() >= 2 &&
         std::all_of(token.begin(), token.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool is_run_connector(const std::string& lower) {  // "Bank of England", "Leonardo da Vinci"
  return in_list(lower, {"of", "the", "de", "da", "van", "von", "&"});
}

class SentenceEntities {
 public:
  explicit SentenceEntities(std::string_view sentence) {
    for (const features::TokenSpan& span : features::token_spans(sentence)) {
      tokens_.emplace_back(sentence.substr(span.begin, span.end - span.begin));
      lower_.push_back(features::fold_token(tokens_.back()));
    }
    first_word_ = 0;
    while (first_word_ < tokens_.size() && !features::is_word(tokens_[first_word_])) ++first_word_;
  }

  int count() {
    int entities = 0;
    std::size_t i = 0;
    while (i < tokens_.size()) {
      std::size_t end = date_end(i);
      if (end == i) end = number_end(i);
      if (end > i) {
        ++entities;
        i = end;
        continue;
      }
      end = run_end(i);
      if (end > i) {
        if (run_is_entity(i, end)) ++entities;
        i = end;
        continue;
      }
      ++i;
    }
    return entities;
  }

 private:
  bool has(std::size_t i) const { return i < tokens_.size(); }

  // DATE: [day] Month [day] [,] [year]; Weekday; a year. Returns the end of the span, or i.
  std::size_t date_end(std::size_t i) const {
    if (is_capitalised(tokens_[i]) && is_weekday(lower_[i])) return i + 1;
    std::size_t j = i;
    bool day_before = false;
    if (is_day_number(tokens_[j]) && has(j + 1) && is_capitalised(tokens_[j + 1]) &&
        is_month(lower_[j + 1])) {
      day_before = true;
      ++j;
    }
    if (is_capitalised(tokens_[j]) && is_month(lower_[j])) {
      const std::size_t month = j++;
      bool number_after = false;
      if (has(j) && is_day_number(tokens_[j]) && !is_year(tokens_[j])) {
        ++j;
        number_after = true;
      }
      if (has(j + 1) && tokens_[j] == "," && is_year(tokens_[j + 1])) j += 2;
      if (has(j) && is_year(tokens_[j])) ++j;
      number_after = number_after || j > month + 1;
      // A bare month name is a date unless it may be a modal or start the sentence ("May I ...").
      if (day_before || number_after || (lower_[month] != "may" && month != first_word_)) return j;
      return i;
    }
    if (is_year(tokens_[i])) return i + 1;
    return i;
  }

  // CARDINAL/PERCENT/MONEY/QUANTITY: [currency sign] number [%|unit].
  std::size_t number_end(std::size_t i) const {
    std::size_t j = i;
    if (is_currency_sign(tokens_[j]) && has(j + 1) && starts_with_digit(tokens_[j + 1])) ++j;
    if (!starts_with_digit(tokens_[j])) return i;
    ++j;
    if (has(j) && is_unit(lower_[j])) ++j;
    return j;
  }

  // A maximal run of capitalised words, connectors allowed between two of them.
  std::size_t run_end(std::size_t i) const {
    if (!is_capitalised(tokens_[i])) return i;
    std::size_t j = i + 1;
    while (has(j)) {
      if (is_capitalised(tokens_[j]) && date_end(j) == j) {
        ++j;
      } else if (is_run_connector(lower_[j]) && has(j + 1) && is_capitalised(tokens_[j + 1])) {
        j += 2;
      } else {
        break;
      }
    }
    return j;
  }

  bool run_is_entity(std::size_t begin, std::size_t end) const {
    std::size_t first = begin;
    while (first < end && !is_acronym(tokens_[first]) &&
           (is_common_word(lower_[first]) || is_run_connector(lower_[first]))) {
      ++first;
    }
    if (first == end) return false;
    // A lone sentence-initial word that looks like an inflected common word.
    return !(begin == first_word_ && first == begin && end - begin == 1 && looks_inflected(lower_[begin]));
  }

  std::vector<std::string> tokens_;
  std::vector<std::string> lower_;
  std::size_t first_word_ = 0;
};

}  // namespace

// iMAD App. A.2 (i): question_named_entity_count.
int named_entity_count(std::string_view text) {
  int total = 0;
  for (const std::string& sentence : sentences(text)) total += SentenceEntities(sentence).count();
  return total;
}

}  // namespace parley
