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

// ---- Clauses the agent does not assert: someone else's computation, a criticised figure or
// option, a counterfactual. They are found clause by clause; a parenthetical is a clause of its
// own inside the clause around it ("Answer: B (A is incorrect)"). ----

// Words that open a new clause inside a sentence (a cut is made before them).
constexpr std::string_view kClauseOpeners[] = {"but",       "however", "although", "though",   "yet",
                                               "whereas",   "so",      "since",    "because",  "hence",
                                               "therefore", "thus",    "leaving",  "assuming", "given"};
// Words that open a new clause only after ", " ("B, as A is wrong"; "as much as" is no clause).
constexpr std::string_view kCommaClauseOpeners[] = {"as", "and", "not", "while"};
// A clause holding one of these says that something is wrong: what it names is not the answer
// ("16 × 2 = 32 ignores the eggs she uses", "Option A is incorrect", "which rules out C").
constexpr std::string_view kFaultPhrases[] = {
    "ignores",        "ignored",           "overlooks",     "overlooked",  "neglects",
    "neglected",      "forgets",           "forgot",        "forgotten",   "omits",
    "omitted",        "overcounts",        "overcounted",   "undercounts", "undercounted",
    "double-counts",  "double-counted",    "double counts", "overstates",  "overstated",
    "understates",    "understated",       "incorrect",     "wrong",       "mistaken",
    "erroneous",      "is a mistake",      "was a mistake", "rules out",   "ruled out",
    "rule out",       "can be eliminated", "is eliminated", "not correct", "not right",
    "not the answer", "not the correct"};
// After "would": a hypothetical that is criticised ("16 × 2 = 32 would ignore the eggs").
constexpr std::string_view kWouldFaults[] = {
    "ignore",       "overlook",     "neglect",   "forget",     "omit", "overcount", "undercount",
    "double-count", "double count", "overstate", "understate", "miss", "leave out"};
constexpr std::string_view kWouldAdverbs[] = {"also",   "only",  "then",        "actually", "completely",
                                              "simply", "still", "incorrectly", "wrongly",  "effectively"};
// Who else may compute or answer in a debate: "some agents computed", "others got", "a2 said".
constexpr std::string_view kPeerSubjects[] = {
    "agent",     "agents", "other", "others",  "they",     "someone",   "somebody",  "everyone",
    "everybody", "some",   "both",  "debater", "debaters", "opponent",  "opponents", "side",
    "peer",      "peers",  "model", "models",  "solution", "solutions", "response",  "responses"};
// Verbs by which a peer arrives at a figure (third person or past: "computes", "got").
constexpr std::string_view kComputingVerbs[] = {
    "computed",   "computes",  "calculated", "calculates", "got",        "gets",       "obtained", "obtains",
    "found",      "finds",     "arrived",    "arrives",    "derived",    "derives",    "reached",  "reaches",
    "estimated",  "estimates", "came",       "comes",      "multiplied", "multiplies", "added",    "adds",
    "subtracted", "subtracts", "counted",    "counts",     "assumed",    "assumes",    "used",     "uses"};
constexpr std::string_view kIrregularPast[] = {
    "had",   "were",   "was",  "did",  "sold",    "made",   "ate",   "took", "got",
    "gave",  "bought", "paid", "kept", "spent",   "forgot", "left",  "ran",  "sent",
    "found", "came",   "went", "said", "thought", "wrote",  "chose", "held"};
// Clauses after a counterfactual that state why it does not hold ("..., but she eats 3") belong
// to it, unless the agent speaks for itself there.
constexpr std::string_view kContinuingOpeners[] = {"but",    "because",  "since",  "as",
                                                   "though", "although", "whereas"};
constexpr std::string_view kOwnMarkers[] = {"i",       "we",       "my",     "our",    "answer",
                                            "correct", "actually", "really", "instead"};

std::string_view word_in(std::string_view s, Span w) { return s.substr(w.begin, w.end - w.begin); }

// The words of s[span], letters, digits, apostrophes and hyphens.
std::vector<Span> words_of(std::string_view s, Span span) {
  std::vector<Span> out;
  for (std::size_t i = span.begin; i < span.end;) {
    if (!is_alnum(s[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < span.end &&
           (is_alnum(s[end]) || ((s[end] == '\'' || s[end] == '-') && is_alnum(at(s, end + 1))))) {
      ++end;
    }
    out.push_back({i, end});
    i = end;
  }
  return out;
}

bool phrase_in(std::string_view s, Span span, std::string_view phrase) {
  const std::string_view clause = s.substr(0, span.end);
  for (std::size_t i = find_ci(clause, phrase, span.begin); i != std::string_view::npos;
       i = find_ci(clause, phrase, i + 1)) {
    if (word_at(clause, i, phrase)) return true;
  }
  return false;
}

template <std::size_t N>
bool any_phrase_in(std::string_view s, Span span, const std::string_view (&phrases)[N]) {
  for (std::string_view phrase : phrases) {
    if (phrase_in(s, span, phrase)) return true;
  }
  return false;
}

bool is_past(std::string_view s, Span w) {
  return (w.end - w.begin > 3 && matches_at(s, w.end - 2, "ed")) || is_one_of(s, w, kIrregularPast);
}

// "a2", "agent3": a debater's id.
bool is_agent_id(std::string_view word) {
  std::size_t digits = word.size();
  while (digits > 0 && is_digit(word[digits - 1])) --digits;
  if (digits == word.size()) return false;
  const std::string_view stem = word.substr(0, digits);
  return stem.size() == 1 ? (stem[0] == 'a' || stem[0] == 'A')
                          : matches_at(stem, 0, "agent") && stem.size() == 5;
}

// The subject before a verb at words[k] is a peer ("Some agents computed", "Agent 2 calculated",
// "a2 got", "You said"; "you" only in the past: "you get 18" is generic).
bool peer_subject(std::string_view s, const std::vector<Span>& words, std::size_t k) {
  std::size_t j = k;
  while (j > 0 && is_one_of(s, words[j - 1], kAdverbs)) --j;
  if (j == 0) return false;
  const Span subject = words[j - 1];
  const std::string_view word = word_in(s, subject);
  if (is_one_of(s, subject, kPeerSubjects) || is_agent_id(word)) return true;
  if (is_word(s, subject, "you")) return is_past(s, words[k]);
  const bool number = std::all_of(word.begin(), word.end(), [](char c) { return is_digit(c); });
  return number && j >= 2 && (is_word(s, words[j - 2], "agent") || is_word(s, words[j - 2], "agents"));
}

// "Some agents computed 16 × 2 = 32", "a2 said 32", "The other agents got 32".
bool reports_peer(std::string_view s, const std::vector<Span>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    if ((is_one_of(s, words[k], kComputingVerbs) || is_one_of(s, words[k], kReportingVerbs)) &&
        peer_subject(s, words, k)) {
      return true;
    }
  }
  return false;
}

// "a2's 32", "Agent a1's answer of $32", "your $20": a peer's figure. Returns where the
// possessive starts, or npos.
std::size_t peer_figure(std::string_view s, const std::vector<Span>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string_view word = word_in(s, words[k]);
    bool peer = is_word(s, words[k], "your");
    for (std::string_view suffix : {std::string_view("'s"), std::string_view("s'")}) {
      if (!peer && word.size() > suffix.size() && word.ends_with(suffix)) {
        const std::string_view stem = word.substr(0, word.size() - (suffix == "'s" ? 2 : 1));
        peer = is_agent_id(stem) ||
               is_one_of(s, Span{words[k].begin, words[k].begin + stem.size()}, kPeerSubjects);
      }
    }
    if (!peer) continue;
    // The figure follows within a few words ("a1's answer of $32").
    for (std::size_t j = k + 1; j < words.size() && j <= k + 4; ++j) {
      if (is_digit(s[words[j].begin])) return words[k].begin;
    }
  }
  return std::string_view::npos;
}

// "16 × 2 = 32 would ignore the eggs".
bool criticised_hypothetical(std::string_view s, const std::vector<Span>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (!is_word(s, words[k], "would")) continue;
    std::size_t j = k + 1;
    while (j < words.size() && is_one_of(s, words[j], kWouldAdverbs)) ++j;
    if (j < words.size() && is_one_of(s, words[j], kWouldFaults)) return true;
    if (j + 1 < words.size() && is_word(s, words[j], "leave") && is_word(s, words[j + 1], "out")) return true;
  }
  return false;
}

// "If she sold all 16 eggs, she would make $32": "if" and a past form within four words, then
// "would" (or "'d").
bool counterfactual(std::string_view s, const std::vector<Span>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (!is_word(s, words[k], "if")) continue;
    bool past = false;
    std::size_t j = k + 1;
    for (; j < words.size() && j <= k + 4 && !past; ++j) past = is_past(s, words[j]);
    if (!past) continue;
    for (; j < words.size(); ++j) {
      const std::string_view word = word_in(s, words[j]);
      if (is_word(s, words[j], "would") || word.ends_with("'d")) return true;
    }
  }
  return false;
}

enum class Disowned { kNo, kWhole, kFrom };

// Parenthetical clauses are read to this depth; deeper ones belong to the clause around them.
constexpr std::size_t kMaxParentheticalDepth = 3;

// The insides of parentheses ("\(" is math, not a parenthesis), by depth: [0] is the whole
// text, [d] the insides of parentheses opened at depth d - 1. `depth_of` gets each byte's depth.
std::vector<std::vector<Span>> parenthetical_regions(std::string_view s, std::vector<std::size_t>& depth_of) {
  std::vector<std::vector<Span>> regions(kMaxParentheticalDepth + 1);
  regions[0].push_back({0, s.size()});
  depth_of.assign(s.size(), 0);
  std::vector<std::size_t> opens;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool math = i > 0 && s[i - 1] == '\\';
    if (s[i] == ')' && !math && !opens.empty()) {
      if (opens.size() <= kMaxParentheticalDepth) regions[opens.size()].push_back({opens.back(), i});
      opens.pop_back();
    }
    depth_of[i] = opens.size();
    if (s[i] == '(' && !math) opens.push_back(i + 1);
  }
  for (; !opens.empty(); opens.pop_back()) {  // unclosed: to the end
    if (opens.size() <= kMaxParentheticalDepth) regions[opens.size()].push_back({opens.back(), s.size()});
  }
  return regions;
}

struct Clause {
  Span span;
  bool sentence_start = false;  // the first clause of its sentence
};

// Clauses of `masked` (parenthetical insides blanked) in s[region].
std::vector<Clause> clauses_of(std::string_view masked, Span region) {
  std::vector<Clause> out;
  std::size_t start = region.begin;
  bool sentence_start = true;
  auto cut = [&](std::size_t end, std::size_t resume, bool ends_sentence) {
    if (end > start) out.push_back({{start, end}, sentence_start});
    if (end > start || ends_sentence) sentence_start = ends_sentence;
    start = resume;
  };
  for (std::size_t i = region.begin; i < region.end; ++i) {
    const char c = masked[i];
    const bool space_after = i + 1 >= region.end || is_space(masked[i + 1]);
    if (c == '\n') {
      cut(i, i + 1, true);
    } else if ((c == '.' || c == '!' || c == '?') && space_after) {
      cut(i + 1, i + 1, true);
    } else if (c == ';' || (c == ':' && space_after)) {
      cut(i + 1, i + 1, false);
    } else if (matches_at(masked, i, kDashes[0]) || matches_at(masked, i, kDashes[1])) {
      cut(i, i + kDashes[0].size(), false);
      i += kDashes[0].size() - 1;
    } else if (c == ',' && space_after) {
      std::size_t j = i + 1;
      while (j < region.end && is_space(masked[j])) ++j;
      for (std::string_view word : kCommaClauseOpeners) {
        if (word_at(masked, j, word)) cut(i + 1, j, false);
      }
    } else if (is_alpha(c) && i > start && !is_alpha(masked[i - 1])) {
      for (std::string_view word : kClauseOpeners) {
        if (word_at(masked, i, word)) {
          cut(i, i, false);
          break;
        }
      }
    }
  }
  cut(region.end, region.end, true);
  return out;
}

// The clauses of s[region] that the agent does not assert, read in `masked` (s with deeper
// parentheticals blanked).
void disown_clauses_in(std::string_view s, std::string_view masked, Span region,
                       const std::vector<Span>& sentences, std::vector<Span>& out) {
  bool hypothetical = false;  // the sentence so far set up a counterfactual
  for (const Clause& clause : clauses_of(masked, region)) {
    if (clause.sentence_start) hypothetical = false;
    const auto words = words_of(masked, clause.span);
    if (words.empty()) continue;
    std::size_t from = std::string_view::npos;
    if (counterfactual(masked, words)) {
      hypothetical = true;
      from = clause.span.begin;
    } else if (hypothetical && is_one_of(masked, words.front(), kContinuingOpeners) &&
               !std::any_of(words.begin(), words.end(),
                            [&](Span w) { return is_one_of(masked, w, kOwnMarkers); })) {
      from = clause.span.begin;
    } else if (any_phrase_in(masked, clause.span, kFaultPhrases) || criticised_hypothetical(masked, words)) {
      from = clause.span.begin;
    } else if (reports_peer(masked, words) && !agrees_after(s, sentences, clause.span.begin)) {
      from = clause.span.begin;
    } else if (const std::size_t possessive = peer_figure(masked, words);
               possessive != std::string_view::npos && !agrees_after(s, sentences, clause.span.begin)) {
      // Only the peer's figure: "Unlike a2's 32, I get 18" keeps "I get 18".
      std::size_t end = possessive;
      while (end < clause.span.end && !(masked[end] == ',' && is_space(at(masked, end + 1)))) ++end;
      out.push_back({possessive, end});
      continue;
    }
    if (from != std::string_view::npos) out.push_back({from, clause.span.end});
  }
}

void disown_clauses(std::string_view s, const std::vector<Span>& sentences, std::vector<Span>& out) {
  std::vector<std::size_t> depth_of;
  const auto regions = parenthetical_regions(s, depth_of);
  std::string masked(s);
  for (std::size_t depth = 0; depth < regions.size() && !regions[depth].empty(); ++depth) {
    for (std::size_t i = 0; i < s.size(); ++i) masked[i] = depth_of[i] > depth && s[i] != '\n' ? ' ' : s[i];
    for (const Span& region : regions[depth]) disown_clauses_in(s, masked, region, sentences, out);
  }
}

// "not C", "not (C)", "not option C", "rather than C", "instead of C": an option put aside.
void disown_rejected_letters(std::string_view s, std::vector<Span>& out) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t j = std::string_view::npos;
    for (std::string_view phrase :
         {std::string_view("not"), std::string_view("rather than"), std::string_view("instead of")}) {
      if (word_at(s, i, phrase)) j = i + phrase.size();
    }
    if (j == std::string_view::npos) continue;
    while (is_space(at(s, j)) || at(s, j) == '*') ++j;
    if (word_at(s, j, "option")) {
      j += 6;
      while (is_space(at(s, j))) ++j;
    }
    const bool parenthesised = at(s, j) == '(' && is_upper(at(s, j + 1)) && at(s, j + 2) == ')';
    const bool bare = is_upper(at(s, j)) && !is_alnum(at(s, j + 1)) && at(s, j + 1) != '\'' &&
                      !(at(s, j + 1) == '.' && is_alpha(at(s, j + 2)));
    if (!parenthesised && !bare) continue;
    // "not A farmer", "not I think": an article or pronoun, not a letter.
    if (bare && (s[j] == 'A' || s[j] == 'I') && is_space(at(s, j + 1)) && is_alpha(at(s, j + 2)) &&
        !is_upper(at(s, j + 2))) {
      continue;
    }
    out.push_back({i, j + (parenthesised ? 3 : 1)});
  }
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
  for (const Statement& statement : find_answer_statements(visible, choice_words)) {
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
  disown_clauses(visible, sentences, out.blanked);
  disown_rejected_letters(visible, out.blanked);
  std::sort(out.blanked.begin(), out.blanked.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  blank_spans(out.text, out.blanked);
  return out;
}

}  // namespace parley::answer_scan
