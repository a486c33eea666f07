#include "answer/own_words.h"

#include <algorithm>

#include "answer/statements.h"

namespace parley::answer_scan {
namespace {

// Third-person and past forms that report what someone else holds.
constexpr std::string_view kReportingVerbs[] = {
    "said",     "says",      "claims",     "claimed",  "argues",    "argued",    "suggests",  "suggested",
    "states",   "stated",    "proposes",   "proposed", "believes",  "believed",  "thinks",    "thought",
    "concludes", "concluded", "insists",   "insisted", "maintains", "maintained", "answered", "answers",
    "wrote",    "writes",    "chose",      "chooses",  "picked",    "picks",     "selected",  "selects",
    "asserts",  "asserted",  "contends",   "contended", "reasons",  "reasoned",  "holds",     "held",
    "reports",  "reported",  "mentioned",  "mentions", "concluded", "responded", "replied",   "gave"};
// Words that may stand between a subject and its verb ("I previously said").
constexpr std::string_view kAdverbs[] = {"also",    "still", "just",  "initially", "originally", "previously",
                                         "earlier", "first", "then",  "had",       "has",        "have",
                                         "already", "once",  "clearly", "correctly"};
constexpr std::string_view kPossessives[] = {"their", "your", "his", "her", "its"};
// Words between a possessive and the marker ("Agent a1's final answer").
constexpr std::string_view kAnswerAdjectives[] = {"final", "correct", "proposed", "initial", "original", "chosen",
                                                  "preferred", "current", "latest", "own"};
constexpr std::string_view kAgreement[] = {"i agree", "i also agree", "i fully agree", "i concur", "i accept that",
                                           "i accept this", "agreed"};
constexpr std::string_view kDashes[] = {"\xE2\x80\x93", "\xE2\x80\x94"};
constexpr std::size_t kLookBehind = 200;  // a statement's attribution is close before it

// One word before `end` (letters, digits, apostrophes), skipping white space and markup.
Span word_before(std::string_view s, std::size_t floor, std::size_t end) {
  while (end > floor && !is_alnum(s[end - 1]) && s[end - 1] != '\'') --end;
  std::size_t begin = end;
  while (begin > floor && (is_alnum(s[begin - 1]) || s[begin - 1] == '\'')) --begin;
  return {begin, end};
}

bool is_word(std::string_view s, Span w, std::string_view word) {
  return w.end - w.begin == word.size() && matches_at(s, w.begin, word);
}

template <std::size_t N>
bool is_one_of(std::string_view s, Span w, const std::string_view (&words)[N]) {
  for (std::string_view word : words) {
    if (is_word(s, w, word)) return true;
  }
  return false;
}

bool first_person(std::string_view s, Span w) { return is_word(s, w, "i") || is_word(s, w, "we"); }

// "Agent a1's (final) answer", "your answer".
bool after_possessive(std::string_view s, std::size_t floor, std::size_t marker) {
  Span w = word_before(s, floor, marker);
  while (w.begin < w.end && is_one_of(s, w, kAnswerAdjectives)) w = word_before(s, floor, w.begin);
  if (w.begin == w.end) return false;
  const std::string_view word = s.substr(w.begin, w.end - w.begin);
  if (is_one_of(s, w, kPossessives)) return true;
  return word.size() > 2 && (word.ends_with("'s") || word.ends_with("s'"));
}

// A reporting verb between `floor` and `marker` whose subject is not the agent.
bool after_someone_elses_report(std::string_view s, std::size_t floor, std::size_t marker) {
  if (const std::size_t according = find_ci(s.substr(0, marker), "according to", floor);
      according != std::string_view::npos) {
    std::size_t j = according + 12;
    while (is_space(at(s, j))) ++j;
    if (!word_at(s, j, "my") && !word_at(s, j, "our") && !word_at(s, j, "me")) return true;
  }
  // The verb must be in the statement's own clause: in "After reading what a2 said, I conclude
  // the answer is B" the report ends at the comma.
  for (std::size_t i = marker; i > floor; --i) {
    if (std::string_view(",;:").find(s[i - 1]) != std::string_view::npos) {
      floor = i;
      break;
    }
  }
  for (Span w = word_before(s, floor, marker); w.begin < w.end; w = word_before(s, floor, w.begin)) {
    if (!is_one_of(s, w, kReportingVerbs)) continue;
    Span subject = word_before(s, floor, w.begin);
    while (subject.begin < subject.end && is_one_of(s, subject, kAdverbs)) subject = word_before(s, floor, subject.begin);
    return !first_person(s, subject);
  }
  return false;
}

// The sentence holding `pos` and the next one: where an agent adopts what it just quoted.
bool agrees_after(std::string_view s, const std::vector<Span>& sentences, std::size_t pos) {
  auto it = std::upper_bound(sentences.begin(), sentences.end(), pos,
                             [](std::size_t p, const Span& span) { return p < span.begin; });
  if (it != sentences.begin()) --it;
  for (int k = 0; k < 2 && it != sentences.end(); ++k, ++it) {
    const std::size_t from = std::max(pos, it->begin);
    if (from >= it->end) continue;
    const std::string_view sentence = s.substr(from, it->end - from);
    for (std::string_view phrase : kAgreement) {
      for (std::size_t i = find_ci(sentence, phrase); i != std::string_view::npos; i = find_ci(sentence, phrase, i + 1)) {
        if (word_at(sentence, i, phrase)) return true;
      }
    }
  }
  return false;
}

// End of the clause that starts at `from`: a sentence end, ';', ", ", a dash, " but ", or the line end.
std::size_t clause_end(std::string_view s, std::size_t from) {
  const std::size_t limit = std::min(s.size(), from + 1000);
  for (std::size_t i = from; i < limit; ++i) {
    const char c = s[i];
    if (c == '\n' || c == ';') return i;
    if ((c == '.' || c == '!' || c == '?' || c == ',') && (i + 1 == s.size() || is_space(s[i + 1]))) return i;
    if (matches_at(s, i, kDashes[0]) || matches_at(s, i, kDashes[1]) || (i > from && word_at(s, i, "but"))) return i;
  }
  return limit;
}

bool negated(std::string_view payload) {
  std::size_t i = 0;
  while (i < payload.size() && (is_space(payload[i]) || payload[i] == '*' || payload[i] == '_')) ++i;
  return word_at(payload, i, "not");
}

}  // namespace

OwnWords own_words(std::string_view text, bool choice_words) {
  const std::string_view visible = visible_reply(text);
  OwnWords out{std::string(visible), {}};
  // Block quotes, whole lines.
  for (std::size_t start = 0; start < visible.size();) {
    std::size_t end = visible.find('\n', start);
    if (end == std::string_view::npos) end = visible.size();
    std::size_t i = start;
    while (i < end && (visible[i] == ' ' || visible[i] == '\t')) ++i;
    if (at(visible, i) == '>' && i < end) out.blanked.push_back({start, end});
    start = end + 1;
  }
  const auto sentences = sentence_spans(visible);
  const auto statements = find_answer_statements(visible, choice_words);
  for (const Statement& statement : statements) {
    const std::size_t marker = statement.position;
    const std::size_t payload = static_cast<std::size_t>(statement.payload.data() - visible.data());
    bool others = false;
    if (!negated(statement.payload)) {
      auto it = std::upper_bound(sentences.begin(), sentences.end(), marker,
                                 [](std::size_t p, const Span& span) { return p < span.begin; });
      const std::size_t sentence_start = it == sentences.begin() ? 0 : std::prev(it)->begin;
      const std::size_t floor = std::max(sentence_start, marker > kLookBehind ? marker - kLookBehind : 0);
      others = (after_possessive(visible, floor, marker) || after_someone_elses_report(visible, floor, marker)) &&
               !agrees_after(visible, sentences, payload);
      if (!others) continue;
    }
    out.blanked.push_back({marker, clause_end(visible, payload)});
  }
  std::sort(out.blanked.begin(), out.blanked.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  blank_spans(out.text, out.blanked);
  const bool unchanged = out.blanked.empty();
  out.sentences = unchanged ? sentences : sentence_spans(out.text);
  const std::string_view read = unchanged ? visible : std::string_view(out.text);
  const auto read_statements = unchanged ? std::vector<Statement>() : find_answer_statements(out.text, choice_words);
  out.statement_spans.reserve(unchanged ? statements.size() : read_statements.size());
  for (const Statement& statement : unchanged ? statements : read_statements) {
    // A statement whose payload is no text at all (payload_from's empty view) keeps it so.
    const std::size_t begin = statement.payload.data() == nullptr
                                  ? std::string_view::npos
                                  : static_cast<std::size_t>(statement.payload.data() - read.data());
    out.statement_spans.push_back({statement.position, {begin, begin + statement.payload.size()}});
  }
  return out;
}

std::vector<Statement> OwnWords::statements() const {
  std::vector<Statement> out;
  out.reserve(statement_spans.size());
  for (const auto& [position, payload] : statement_spans) {
    out.push_back({position, payload.begin == std::string_view::npos
                                 ? std::string_view()
                                 : std::string_view(text).substr(payload.begin, payload.end - payload.begin)});
  }
  return out;
}

}  // namespace parley::answer_scan
