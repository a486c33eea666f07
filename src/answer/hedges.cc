#include "answer/hedges.h"

#include <array>
#include <vector>

#include "parley/answer.h"

namespace parley::answer_scan {
namespace {

// Written lower-case; "'" also matches the typographic apostrophe and ' ' any run of white space.
// The agent says it does not know:
constexpr std::string_view kNotKnowing[] = {
    "not sure",           "unsure",              "not certain",         "don't know",         "do not know",
    "dont know",          "i cannot determine",  "i can't determine",   "we cannot determine", "we can't determine",
    "unable to determine", "cannot tell",        "can't tell",          "cannot say",         "can't say",
    "hard to say",        "impossible to say",   "don't have enough",   "do not have enough", "need more information",
    "cannot answer",      "can't answer",        "unable to answer",    "no way to know",     "no way of knowing",
    "can't decide",       "cannot decide",       "can not decide",      "unable to decide",   "torn between",
    "undecided"};
// The agent says the question has no answer:
constexpr std::string_view kUnanswerable[] = {
    "cannot be determined", "can't be determined", "impossible to determine", "not possible to determine",
    "not enough information", "insufficient information", "more information is needed", "cannot be answered",
    "can't be answered"};
constexpr std::string_view kClauseWords[] = {"but", "though", "although", "however", "yet"};
constexpr std::string_view kRightQuote = "\xE2\x80\x99";  // U+2019
constexpr std::string_view kDashes[] = {"\xE2\x80\x93", "\xE2\x80\x94"};

// End of `phrase` matched at `pos` (see kNotKnowing), or npos.
std::size_t phrase_end(std::string_view s, std::size_t pos, std::string_view phrase) {
  std::size_t i = pos;
  for (std::size_t k = 0; k < phrase.size(); ++k) {
    const char p = phrase[k];
    if (p == ' ') {
      if (!is_space(at(s, i))) return std::string_view::npos;
      while (is_space(at(s, i))) ++i;
    } else if (p == '\'' && matches_at(s, i, kRightQuote)) {
      i += kRightQuote.size();
    } else {
      if (to_lower(at(s, i)) != p) return std::string_view::npos;
      ++i;
    }
  }
  if (is_alpha(at(s, i))) return std::string_view::npos;
  return i;
}

// An alternative that is an answer: a number ("12", "$15") or an option letter ("B", "(C)").
bool is_answer_word(std::string_view word) {
  while (!word.empty() && std::string_view("*_$(").find(word.front()) != std::string_view::npos)
    word.remove_prefix(1);
  while (!word.empty() && std::string_view("*_).,").find(word.back()) != std::string_view::npos)
    word.remove_suffix(1);
  if (word.size() == 1 && is_upper(word[0])) return true;
  return !word.empty() && is_digit(word[0]);
}

// "either B or C", "either 12 or 15 eggs": a choice between answers left open. At most three
// words stand between "either" and "or", one of them an answer; "either way" is no hedge.
bool either_or_at(std::string_view s, std::size_t i) {
  if (!word_at(s, i, "either")) return false;
  std::size_t j = i + 6;
  bool answer = false;
  for (int words = 0; words <= 3; ++words) {
    while (is_space(at(s, j))) ++j;
    const std::size_t begin = j;
    while (j < s.size() && !is_space(s[j])) ++j;
    const std::string_view word = s.substr(begin, j - begin);
    if (word.empty()) return false;
    if (word_at(s, begin, "or")) return answer && words > 0;
    answer |= is_answer_word(word);
  }
  return false;
}

// The phrases of kNotKnowing and kUnanswerable by their first letter: at a word start only
// the few that can match there are tried.
struct Phrase {
  std::string_view text;
  bool unanswerable;  // from kUnanswerable
};
const std::array<std::vector<Phrase>, 26>& phrases_by_letter() {
  static const std::array<std::vector<Phrase>, 26> table = [] {
    std::array<std::vector<Phrase>, 26> by_letter;
    for (std::string_view phrase : kNotKnowing) by_letter[static_cast<std::size_t>(phrase[0] - 'a')].push_back({phrase, false});
    for (std::string_view phrase : kUnanswerable) by_letter[static_cast<std::size_t>(phrase[0] - 'a')].push_back({phrase, true});
    return by_letter;
  }();
  return table;
}

bool holds_no_answer_phrase(std::string_view s, Unanswerable claims) {
  const auto& by_letter = phrases_by_letter();
  for (std::size_t i = 0; i < s.size();) {
    // From word start to word start: the bytes between are passed over at a lookup each.
    while (i < s.size() && !is_alpha(s[i])) ++i;
    if (i == s.size()) break;
    const char first = to_lower(s[i]);
    if (first == 'e' && either_or_at(s, i)) return true;
    const char second = to_lower(at(s, i + 1));
    for (const Phrase& phrase : by_letter[static_cast<std::size_t>(first - 'a')]) {
      if (phrase.unanswerable && claims == Unanswerable::kIsAnAnswer) continue;
      // Most words part from every phrase at their second letter (a phrase's second byte is a
      // letter, a space or an apostrophe, which phrase_end matches loosely).
      if (is_alpha(phrase.text[1]) && phrase.text[1] != second) continue;
      if (phrase_end(s, i, phrase.text) != std::string_view::npos) return true;
    }
    while (i < s.size() && is_alpha(s[i])) ++i;
  }
  return false;
}

// Clause spans of one sentence.
void split_clauses(std::string_view text, Span sentence, std::vector<Span>& out) {
  // The bytes that may cut: ';', the lead byte of a dash, the first letters of kClauseWords.
  static constexpr auto kMayCut = [] {
    std::array<bool, 256> may{};
    may[';'] = true;
    may[static_cast<unsigned char>(kDashes[0][0])] = true;
    for (std::string_view word : kClauseWords) {
      may[static_cast<unsigned char>(word[0])] = true;
      may[static_cast<unsigned char>(word[0] - 'a' + 'A')] = true;
    }
    return may;
  }();
  std::size_t start = sentence.begin;
  for (std::size_t i = sentence.begin; i < sentence.end; ++i) {
    const char c = text[i];
    if (!kMayCut[static_cast<unsigned char>(c)]) continue;
    std::size_t cut = std::string_view::npos;
    std::size_t resume = i + 1;
    if (c == ';') {
      cut = i;
    } else if (c == kDashes[0][0] && (matches_at(text, i, kDashes[0]) || matches_at(text, i, kDashes[1]))) {
      cut = i;
      resume = i + kDashes[0].size();
    } else if (is_alpha(c) && (i == 0 || !is_alpha(text[i - 1])) && i > start) {
      for (std::string_view word : kClauseWords) {
        if (word[0] == to_lower(c) && word_at(text, i, word)) {
          cut = i;
          resume = i;
        }
      }
    }
    if (cut == std::string_view::npos) continue;
    if (cut > start) out.push_back({start, cut});
    start = resume;
    i = resume > i ? resume - 1 : i;
  }
  if (sentence.end > start) out.push_back({start, sentence.end});
}

}  // namespace

std::vector<Span> no_answer_clauses(std::string_view text, Unanswerable claims) {
  return no_answer_clauses(text, sentence_spans(text), claims);
}

std::vector<Span> no_answer_clauses(std::string_view text, const std::vector<Span>& sentences, Unanswerable claims) {
  // Most replies hold no such phrase anywhere: one pass over the whole text settles it. This is
  // exact: a clause starts at a word start of the text and ends before a byte that is no letter
  // (a sentence end, ';', a dash, or the space before a clause word), and every phrase ends in
  // a letter, so a phrase a clause holds is one the text holds.
  if (!holds_no_answer_phrase(text, claims)) return {};
  std::vector<Span> clauses;
  for (const Span& sentence : sentences) split_clauses(text, sentence, clauses);
  std::vector<Span> out;
  for (const Span& clause : clauses) {
    if (holds_no_answer_phrase(text.substr(clause.begin, clause.end - clause.begin), claims)) out.push_back(clause);
  }
  return out;
}

bool declares_no_answer(std::string_view text, Unanswerable claims) { return holds_no_answer_phrase(text, claims); }

bool overlaps(const std::vector<Span>& clauses, std::size_t begin, std::size_t end) {
  for (const Span& clause : clauses) {
    if (clause.begin < end && clause.end > begin) return true;
  }
  return false;
}

bool is_bare_stance(std::string_view text) {
  const std::string words = normalize_text(text);
  for (std::string_view stance : {"i agree", "i disagree", "i concur"}) {
    if (!std::string_view(words).starts_with(stance)) continue;
    const std::string_view rest = std::string_view(words).substr(stance.size());
    if (rest.empty()) return true;
    if (!rest.starts_with(" with")) return false;
    std::size_t spaces = 0;
    for (char c : rest) spaces += c == ' ';
    return spaces <= 4;  // "with that", "with agent a2's point": no answer of its own
  }
  return false;
}

}  // namespace parley::answer_scan
