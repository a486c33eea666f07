// parse_number and canonical_number. The reply is read in the agent's own words (own_words:
// no <think> scratchpad, no quoted peer, no negated statement), with its confidence statements
// blanked ("I'm 90% sure" is never the answer). Then:
//   1. answer statements, last first ("#### 72", "\boxed{2^{10}}", "Answer: $1,234.50", "The
//      answer is: after 3 days she has 18 eggs"); the last one holding a number decides, and
//      one that hedges ("12 or 15", "10-15", "I'm not sure ...") makes the reply unparsed;
//   2. otherwise the last sentence holding a number ("So we get 18 eggs."), unless a later
//      clause says the agent does not know.
// Within a statement or sentence the answer is (see pick()): the number the statement opens
// with ("18 (= 9 × 2)", "18, because 16 − 3 − 4 = 9"); else the result after the last '='/'≈'
// outside parentheses; else the last number outside parentheses that is not a qualifier ("after
// 3 days", "from 8 boxes", "not 12"); numbers in parentheses are the answer's computation and
// count only when nothing stands outside them.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "answer/confidence_scan.h"
#include "answer/hedges.h"
#include "answer/number_scan.h"
#include "answer/own_words.h"
#include "answer/scan.h"
#include "answer/statements.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::at;
using answer_scan::is_alpha;
using answer_scan::is_digit;
using answer_scan::is_space;
using answer_scan::matches_at;
using answer_scan::NumberToken;
using answer_scan::Span;
using answer_scan::word_at;

constexpr std::string_view kApprox = "\xE2\x89\x88";  // U+2248
constexpr std::string_view kEnDash = "\xE2\x80\x93";
constexpr std::string_view kEmDash = "\xE2\x80\x94";
// A preposition before a number and a time unit after it make a duration that qualifies the
// answer ("after 3 days she has 18 eggs"): not the answer when another number is there.
constexpr std::string_view kDurationPrepositions[] = {"after", "in", "within", "over", "during",
                                                      "every", "each", "per", "for"};
constexpr std::string_view kTimeUnits[] = {"second", "seconds", "sec",    "secs",  "minute", "minutes", "min",
                                           "mins",   "hour",    "hours",  "hr",    "hrs",    "day",     "days",
                                           "week",   "weeks",   "month",  "months", "year",  "years",   "yr", "yrs"};
// Before any number: a source ("from 8 boxes"), a negation ("not 12"), a step label ("Step 2").
constexpr std::string_view kQualifierWords[] = {"from", "not", "step"};
// What may stand before the number a statement opens with.
constexpr std::string_view kLeadWords[] = {"approximately", "about",  "around", "roughly", "exactly",
                                           "nearly",        "almost", "only",   "just",    "precisely"};
constexpr std::string_view kLeadMarkup[] = {"\\(", "\\[", "$$", "\\boxed{", "\\text{", "\\textbf{", "\\mathbf{",
                                            "\\approx", kApprox};
// Words that end the lead number's clause, so that an '=' after them belongs to its justification.
constexpr std::string_view kBecauseWords[] = {"because", "since", "as", "so", "which", "from"};

enum class Verdict { kNone, kValue, kUndecided };
struct Reading {
  Verdict verdict = Verdict::kNone;
  double value = 0.0;
};

struct Candidate {
  NumberToken token;
  int depth = 0;           // parentheses around it ("\(" and "\[" are math, not parentheses)
  bool qualifier = false;  // "after 3 days", "from 8 boxes", "not 12", "Step 2"
};

template <std::size_t N>
bool is_one_of(std::string_view word, const std::string_view (&words)[N]) {
  for (std::string_view w : words) {
    if (word.size() == w.size() && matches_at(word, 0, w)) return true;
  }
  return false;
}

// The letters of the word that ends before `end` (skipping spaces, '$' and markup).
std::string_view word_before(std::string_view s, std::size_t floor, std::size_t end) {
  while (end > floor && (is_space(s[end - 1]) || s[end - 1] == '$' || s[end - 1] == '*' || s[end - 1] == '_')) --end;
  std::size_t begin = end;
  while (begin > floor && is_alpha(s[begin - 1])) --begin;
  return s.substr(begin, end - begin);
}

std::string_view word_after(std::string_view s, std::size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t end = i;
  while (end < s.size() && is_alpha(s[end])) ++end;
  return s.substr(i, end - i);
}

bool is_qualifier(std::string_view s, std::size_t floor, const NumberToken& token) {
  const std::string_view before = word_before(s, floor, token.begin);
  if (is_one_of(before, kQualifierWords)) return true;
  return is_one_of(before, kDurationPrepositions) && is_one_of(word_after(s, token.end), kTimeUnits);
}

// "1. ", "2) " opening a line: list numbering, not a value.
bool is_list_number(std::string_view s, const NumberToken& token) {
  std::size_t i = token.begin;
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '#' || s[i - 1] == '*')) --i;
  if (i > 0 && s[i - 1] != '\n') return false;
  const char after = at(s, token.end);
  return !token.fraction && !token.percent && (after == '.' || after == ')') && is_space(at(s, token.end + 1)) &&
         is_digit(s[token.begin]);
}

// Candidate numbers of s[span], with their parenthesis depth, leaving out list numbering and
// numbers in clauses that decline to answer.
std::vector<Candidate> candidates_in(std::string_view s, Span span, const std::vector<Span>& declined) {
  std::vector<Candidate> out;
  const std::string_view text = s.substr(0, span.end);
  int depth = 0;
  std::size_t scanned = span.begin;
  auto advance_depth = [&](std::size_t to) {
    for (; scanned < to; ++scanned) {
      const char c = text[scanned];
      const bool math = scanned > 0 && text[scanned - 1] == '\\';
      if ((c == '(' || c == '[') && !math) ++depth;
      if ((c == ')' || c == ']') && !math && depth > 0) --depth;
    }
  };
  for (auto token = answer_scan::next_number(text, span.begin); token;
       token = answer_scan::next_number(text, token->end)) {
    advance_depth(token->begin);
    if (is_list_number(s, *token) || answer_scan::overlaps(declined, token->begin, token->begin + 1)) continue;
    out.push_back({*token, depth, is_qualifier(s, span.begin, *token)});
  }
  return out;
}

// Positions of '=', '≈' and "\approx" outside parentheses in s[span].
std::vector<std::size_t> equals_signs(std::string_view s, Span span) {
  std::vector<std::size_t> out;
  int depth = 0;
  for (std::size_t i = span.begin; i < span.end; ++i) {
    const char c = s[i];
    const bool math = i > 0 && s[i - 1] == '\\';
    if ((c == '(' || c == '[') && !math) ++depth;
    if ((c == ')' || c == ']') && !math && depth > 0) --depth;
    if (depth > 0) continue;
    if (c == '=' || matches_at(s, i, kApprox) || matches_at(s, i, "\\approx")) out.push_back(i);
  }
  return out;
}

// Where the statement's own words start: after markup, LaTeX openers and "approximately".
std::size_t skip_lead(std::string_view s, std::size_t i, std::size_t end) {
  for (std::size_t before = end + 1; i < end && i != before;) {
    before = i;
    while (i < end && (is_space(s[i]) || std::string_view("*_`$~{:").find(s[i]) != std::string_view::npos)) ++i;
    for (std::string_view markup : kLeadMarkup) {
      if (matches_at(s, i, markup)) i += markup.size();
    }
    for (std::string_view word : kLeadWords) {
      if (word_at(s, i, word)) i += word.size();
    }
  }
  return i;
}

// True when a clause break stands in s[from, to): ", ", ';', '(', an en or em dash (a spaced
// hyphen is a minus), or "because"-like words.
bool clause_break_between(std::string_view s, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    const char c = s[i];
    if (c == ';' || c == '(' || (c == ',' && is_space(at(s, i + 1))) || matches_at(s, i, kEmDash) ||
        matches_at(s, i, kEnDash)) {
      return true;
    }
    if (is_alpha(c) && (i == 0 || !is_alpha(s[i - 1]))) {
      for (std::string_view word : kBecauseWords) {
        if (word_at(s, i, word)) return true;
      }
    }
  }
  return false;
}

bool alternative_between(std::string_view s, std::size_t from, std::size_t to) {
  const std::string_view gap = s.substr(from, to - from);
  if (gap == "-" || gap == kEnDash) return true;  // "10-15": a range
  std::size_t i = 0;
  while (i < gap.size() && is_space(gap[i])) ++i;
  if (!word_at(gap, i, "or")) {  // "12 eggs or 15": one word may stand before "or"
    while (i < gap.size() && is_alpha(gap[i])) ++i;
    while (i < gap.size() && is_space(gap[i])) ++i;
  }
  if (!word_at(gap, i, "or")) return false;
  i += 2;
  while (i < gap.size() && is_space(gap[i])) ++i;
  return i == gap.size();
}

// "12 or 15", "10-15", "between 12 and 15": the chosen number is one of alternatives.
bool among_alternatives(std::string_view s, const std::vector<Candidate>& candidates, std::size_t k) {
  const NumberToken& token = candidates[k].token;
  if (k + 1 < candidates.size() && alternative_between(s, token.end, candidates[k + 1].token.begin)) return true;
  if (k == 0) return word_before(s, 0, token.begin) == "between";
  const NumberToken& previous = candidates[k - 1].token;
  if (alternative_between(s, previous.end, token.begin)) return true;
  const std::string_view gap = s.substr(previous.end, token.begin - previous.end);
  return answer_scan::trim(gap) == "and" && word_before(s, 0, previous.begin) == "between";
}

// The number s[span] states, by the rules at the top of this file. `opening` allows the number
// the span opens with (statements; a sentence often opens with an operand).
Reading pick(std::string_view s, Span span, const std::vector<Candidate>& candidates, bool opening) {
  std::optional<std::size_t> chosen;
  const auto equals = equals_signs(s, span);
  const std::size_t lead = skip_lead(s, span.begin, span.end);
  if (opening && candidates.front().depth == 0 && candidates.front().token.begin <= lead &&
      lead < candidates.front().token.end) {
    const std::size_t lead_end = candidates.front().token.end;
    const auto next_equals = std::find_if(equals.begin(), equals.end(), [&](std::size_t e) { return e >= lead_end; });
    if (next_equals == equals.end() || clause_break_between(s, lead_end, *next_equals)) chosen = 0;
  }
  if (!chosen && !equals.empty()) {
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (candidates[k].token.begin > equals.back()) {
        chosen = k;
        break;
      }
    }
  }
  if (!chosen) {
    for (std::size_t k = candidates.size(); k-- > 0;) {
      if (candidates[k].depth == 0 && !candidates[k].qualifier) {
        chosen = k;
        break;
      }
    }
  }
  if (!chosen) {
    for (std::size_t k = candidates.size(); k-- > 0;) {
      if (candidates[k].depth == 0) {
        chosen = k;
        break;
      }
    }
  }
  if (!chosen) chosen = 0;
  if (among_alternatives(s, candidates, *chosen)) return {Verdict::kUndecided, 0.0};
  return {Verdict::kValue, candidates[*chosen].token.value};
}

Reading read_statement(std::string_view s, Span payload, const std::vector<Span>& declined) {
  const auto candidates = candidates_in(s, payload, declined);
  if (candidates.empty()) {
    if (answer_scan::overlaps(declined, payload.begin, payload.end)) return {Verdict::kUndecided, 0.0};
    return {};
  }
  return pick(s, payload, candidates, /*opening=*/true);
}

// A line opening with a confidence label ("Confidence (0-100): 85") holds no answer.
bool opens_with_confidence_label(std::string_view s, Span sentence) {
  std::size_t i = sentence.begin;
  while (i < sentence.end && std::string_view(" \t*_#>-").find(s[i]) != std::string_view::npos) ++i;
  return word_at(s, i, "confidence") || word_at(s, i, "certainty");
}

Reading read_sentences(std::string_view s, const std::vector<Span>& declined) {
  const auto sentences = answer_scan::sentence_spans(s);
  for (auto it = sentences.rbegin(); it != sentences.rend(); ++it) {
    if (s[it->end - 1] == '?' || opens_with_confidence_label(s, *it)) continue;
    const auto candidates = candidates_in(s, *it, declined);
    if (candidates.empty()) continue;
    // The agent said after its last number that it does not know: that number is a guess.
    if (!declined.empty() && declined.back().begin >= it->end) return {Verdict::kUndecided, 0.0};
    return pick(s, *it, candidates, /*opening=*/false);
  }
  return {};
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  answer_scan::OwnWords own = answer_scan::own_words(text);
  std::vector<Span> confidences;
  for (const auto& statement : answer_scan::confidence_statements(own.text)) confidences.push_back(statement.span);
  answer_scan::blank_spans(own.text, confidences);
  const std::string_view s = own.text;
  const auto declined = answer_scan::no_answer_clauses(s, answer_scan::Unanswerable::kDeclines);

  Reading reading;
  const auto statements = answer_scan::find_answer_statements(s);
  for (auto it = statements.rbegin(); it != statements.rend() && reading.verdict == Verdict::kNone; ++it) {
    const auto begin = static_cast<std::size_t>(it->payload.data() - s.data());
    reading = read_statement(s, {begin, begin + it->payload.size()}, declined);
  }
  if (reading.verdict == Verdict::kNone) reading = read_sentences(s, declined);
  if (reading.verdict != Verdict::kValue) return std::nullopt;
  return reading.value;
}

std::string canonical_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Six decimals; below 1, enough decimals to keep six significant digits (0.000123457).
  int decimals = 6;
  if (value != 0.0 && std::fabs(value) < 1.0) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    decimals = std::min(6 - exponent - 1, 20);
  }
  char buffer[400];  // the longest fixed double is 309 integer digits plus sign and decimals
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "nan";
  std::string_view out(buffer, static_cast<std::size_t>(end - buffer));
  if (out.find('.') != std::string_view::npos) {
    while (out.back() == '0') out.remove_suffix(1);
    if (out.back() == '.') out.remove_suffix(1);
  }
  if (out == "-0") return "0";
  return std::string(out);
}

}  // namespace parley
