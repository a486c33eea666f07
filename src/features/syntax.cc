// SyntaxAnalyzer: link-grammar 5.12 parses for iMAD's syntactic depth and part-of-speech counts
// (App. A.2, Table 5: QSyntacticDepth, *_SyntacticDepth, *_num_nouns/verbs/adjs). Depth is the
// deepest bracket nesting of the constituent tree; parts of speech come from the dictionary
// subscripts of the chosen words ("dog.n", "ran.v-d", "big.a"). Choices in docs/features.md.

#include <link-grammar/link-includes.h>
#include <locale.h>

#include <algorithm>
#include <clocale>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

// Longest piece handed to the parser, in word tokens: a longer sentence is cut into pieces
// (after a ',', ';' or ':' where possible). Link-grammar's time grows steeply with length;
// 30-token pieces parse in well under a second.
constexpr std::size_t kMaxPieceTokens = 30;
constexpr int kMaxParseSeconds = 1;
constexpr int kLinkageLimit = 100;
constexpr int kShortLength = 16;      // link-grammar's default
constexpr int kPanicShortLength = 6;  // panic mode: only short links

// Link-grammar reports through a per-thread handler; it would otherwise print locale notices and
// "Debug:" lines on stderr. Messages are kept here, per thread, so a failure can quote them.
thread_local std::vector<std::string> lg_messages;

void collect_message(lg_errinfo* info, void* /*data*/) {
  if (lg_messages.size() >= 32) lg_messages.erase(lg_messages.begin());
  std::string text = info->text != nullptr ? info->text : "";
  while (!text.empty() && text.back() == '\n') text.pop_back();
  lg_messages.push_back(std::string(info->severity_label != nullptr ? info->severity_label : "") + ": " +
                        text);
}

// Installs collect_message for the current thread for the scope's lifetime, then restores the
// previous handler.
class CaptureMessages {
 public:
  CaptureMessages() {
    previous_data_ = lg_error_set_handler_data(nullptr);
    previous_ = lg_error_set_handler(collect_message, nullptr);
  }
  ~CaptureMessages() {
    lg_error_flush();
    lg_error_set_handler(previous_, const_cast<void*>(previous_data_));
  }
  CaptureMessages(const CaptureMessages&) = delete;
  CaptureMessages& operator=(const CaptureMessages&) = delete;

 private:
  lg_error_handler previous_ = nullptr;
  const void* previous_data_ = nullptr;
};

// Link-grammar needs a UTF-8 LC_CTYPE while it tokenizes. It sets the process-wide locale when
// a dictionary is created; we undo that (other code must not see its locale change) and instead
// switch only the calling thread to C.UTF-8 around each parse.
class ThreadLocale {
 public:
  explicit ThreadLocale(locale_t locale) : previous_(locale != nullptr ? uselocale(locale) : nullptr) {}
  ~ThreadLocale() {
    if (previous_ != nullptr) uselocale(previous_);
  }
  ThreadLocale(const ThreadLocale&) = delete;
  ThreadLocale& operator=(const ThreadLocale&) = delete;

 private:
  locale_t previous_;
};

std::mutex& dictionary_mutex() {  // dictionary creation calls setlocale, which is process-wide
  static std::mutex mutex;
  return mutex;
}

locale_t make_utf8_locale() {
  for (const char* name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"}) {
    locale_t locale = newlocale(LC_CTYPE_MASK, name, static_cast<locale_t>(nullptr));
    if (locale != nullptr) return locale;
  }
  return nullptr;
}

std::string joined_messages() {
  std::string out;
  for (const std::string& message : lg_messages) out += (out.empty() ? "" : "; ") + message;
  return out;
}

// The text with invalid UTF-8 and control bytes replaced by spaces, so the parser only sees
// well-formed input.
std::string clean_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const features::Char c = features::char_at(text, i);
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (c.kind == features::CharKind::kSpace && (c.length == 1 && (b < 0x20 || b >= 0x7F))) {
      out.push_back(' ');
    } else {
      out.append(text.substr(i, c.length));
    }
    i += c.length;
  }
  return out;
}

// A sentence as parser-sized pieces (see kMaxPieceTokens).
std::vector<std::string> pieces_of(std::string_view sentence) {
  const std::vector<features::TokenSpan> spans = features::token_spans(sentence);
  std::vector<std::string> out;
  std::size_t first = 0;
  while (first < spans.size()) {
    std::size_t last = std::min(spans.size(), first + kMaxPieceTokens);  // one past the piece
    if (last < spans.size()) {
      for (std::size_t k = last; k > first + kMaxPieceTokens / 3; --k) {
        const std::string_view token =
            sentence.substr(spans[k - 1].begin, spans[k - 1].end - spans[k - 1].begin);
        if (token == "," || token == ";" || token == ":") {
          last = k;
          break;
        }
      }
    }
    out.emplace_back(sentence.substr(spans[first].begin, spans[last - 1].end - spans[first].begin));
    first = last;
  }
  return out;
}

// Deepest bracket nesting of a SINGLE_LINE constituent tree, "(S (NP ...) (VP ...))". Brackets
// in the words themselves are printed as braces by link-grammar, so every '(' opens a constituent.
int tree_depth(std::string_view tree) {
  int depth = 0;
  int deepest = 0;
  for (char c : tree) {
    if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

enum class Pos { kNone, kNoun, kVerb, kAdjective };

bool has_letter(std::string_view base) {
  for (std::size_t i = 0; i < base.size();) {
    const features::Char c = features::char_at(base, i);
    if (c.kind == features::CharKind::kLetter) return true;
    i += c.length;
  }
  return false;
}

bool valid_subscript(std::string_view s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// Part of speech from a dictionary subscript; `base` is the word without it (lower case).
Pos pos_of_subscript(std::string_view subscript, const std::string& base) {
  const std::string_view head = subscript.substr(0, subscript.find('-'));
  // Nouns: n common, s singular, m/f/b names and kin terms, t titles, u units, i dates and unit
  // names, x/y abbreviations, p plurals (also used for a few pronouns and prepositions), c
  // currency names (also used for a few conjunctions).
  if (head == "n" || head == "s" || head == "m" || head == "f" || head == "b" || head == "t" || head == "u" ||
      head == "i" || head == "x" || head == "y") {
    return Pos::kNoun;
  }
  if (head == "p") {
    for (const char* word :
         {"i",    "me",       "mine", "my",   "their", "theirs", "thy",   "this",   "yisser", "for", "like",
          "near", "opposite", "past", "plus", "minus", "worth",  "aside", "behind", "o",      "s"}) {
      if (base == word) return Pos::kNone;
    }
    return Pos::kNoun;
  }
  if (head == "c") {
    for (const char* word : {"although", "but", "done", "far", "gone", "however", "le", "maybe", "though",
                             "through", "tokenize", "whatever", "yet"}) {
      if (base == word) return Pos::kNone;
    }
    return Pos::kNoun;
  }
  // Verbs: v (v-d past), w and q (verb classes taking clauses; -d past), g gerunds/participles.
  if (head == "v" || head == "w" || head == "q" || head == "g") return Pos::kVerb;
  // Adjectives: a (a-c comparative, a-s superlative), ord ordinals.
  if (head == "a" || head == "ord") return Pos::kAdjective;
  return Pos::kNone;
}

// Part of speech of a word without subscript guessed by one of the dictionary's regex classes.
Pos pos_of_regex_class(std::string_view marker) {
  for (const char* noun : {"<CAPITALIZED-WORDS>", "<PL-CAPITALIZED-WORDS>", "<C-NOUN-WORDS>",
                           "<MC-NOUN-WORDS>", "<S-WORDS>", "<NOUN-TO-WORDS>", "<LATIN-ADJ-P-NOUN-WORDS>",
                           "<LATIN-ADJ-S-NOUN-WORDS>", "<INITIALS>", "<ALL-UPPER>"}) {
    if (marker.find(noun) != std::string_view::npos) return Pos::kNoun;
  }
  for (const char* verb : {"<ED-WORDS>", "<ING-WORDS>"}) {
    if (marker.find(verb) != std::string_view::npos) return Pos::kVerb;
  }
  for (const char* adjective : {"<ADJ-WORDS>", "<LATIN-ADJ-WORDS>"}) {
    if (marker.find(adjective) != std::string_view::npos) return Pos::kAdjective;
  }
  return Pos::kNone;
}

// Reads a linkage word: "dog.n", "Xyzzy[!<CAPITALIZED-WORDS>]", "lipase[!<MC-NOUN-WORDS>].n",
// "qwer[?].n" (unknown word, guessed), "[est]" (null word: no part of speech), "LEFT-WALL".
Pos pos_of_word(std::string_view word) {
  if (word.empty() || word.front() == '[' || word == "LEFT-WALL" || word == "RIGHT-WALL") return Pos::kNone;
  std::string_view base = word;
  std::string_view marker;
  std::string_view subscript;
  const std::size_t open = word.find('[');
  if (open != std::string_view::npos && open > 0) {
    const std::size_t close = word.find(']', open);
    if (close == std::string_view::npos) return Pos::kNone;
    base = word.substr(0, open);
    marker = word.substr(open + 1, close - open - 1);
    const std::string_view rest = word.substr(close + 1);
    if (rest.size() > 1 && rest[0] == '.') subscript = rest.substr(1);
  } else {
    const std::size_t dot = word.rfind('.');
    if (dot != std::string_view::npos && dot > 0 && valid_subscript(word.substr(dot + 1))) {
      base = word.substr(0, dot);
      subscript = word.substr(dot + 1);
    }
  }
  if (!has_letter(base)) return Pos::kNone;  // punctuation and numbers ("....v", "3.5")
  if (!subscript.empty())
    return valid_subscript(subscript) ? pos_of_subscript(subscript, ascii_lower(base)) : Pos::kNone;
  return pos_of_regex_class(marker);
}

}  // namespace

struct SyntaxAnalyzer::Impl {
  Dictionary dictionary = nullptr;
  Parse_Options options = nullptr;
  locale_t utf8 = nullptr;

  ~Impl() {
    if (options != nullptr) parse_options_delete(options);
    if (dictionary != nullptr) dictionary_delete(dictionary);
    if (utf8 != nullptr) freelocale(utf8);
  }

  void set_stage(int min_nulls, int max_nulls, bool panic) const {
    parse_options_set_min_null_count(options, min_nulls);
    parse_options_set_max_null_count(options, max_nulls);
    parse_options_set_all_short_connectors(options, panic);
    parse_options_set_short_length(options, panic ? kPanicShortLength : kShortLength);
    parse_options_reset_resources(options);
  }

  // One piece: strict parse, then with null (skipped) words, then panic mode (short links only)
  // if a parse ran out of time. A piece that still has no linkage adds nothing.
  void analyze_piece(const std::string& text, SyntaxStats& stats) const {
    Sentence sentence = sentence_create(text.c_str(), dictionary);
    if (sentence == nullptr) return;
    int found = -1;
    if (sentence_split(sentence, options) == 0) {
      const int length = sentence_length(sentence);
      set_stage(0, 0, false);
      found = sentence_parse(sentence, options);
      bool exhausted = parse_options_resources_exhausted(options);
      if (found <= 0 && !exhausted) {
        set_stage(1, length, false);
        found = sentence_parse(sentence, options);
        exhausted = parse_options_resources_exhausted(options);
      }
      if (found <= 0 || exhausted) {
        set_stage(1, length, true);
        found = sentence_parse(sentence, options);
        if (parse_options_resources_exhausted(options)) found = 0;
      }
    }
    Linkage linkage = found > 0 ? linkage_create(0, sentence, options) : nullptr;
    if (linkage != nullptr) {
      char* tree = linkage_print_constituent_tree(linkage, SINGLE_LINE);
      if (tree != nullptr) {
        stats.max_depth = std::max(stats.max_depth, tree_depth(tree));
        linkage_free_constituent_tree_str(tree);
      }
      const std::size_t words = linkage_get_num_words(linkage);
      for (std::size_t w = 0; w < words; ++w) {
        const char* word = linkage_get_word(linkage, w);
        switch (pos_of_word(word != nullptr ? word : "")) {
          case Pos::kNoun:
            ++stats.nouns;
            break;
          case Pos::kVerb:
            ++stats.verbs;
            break;
          case Pos::kAdjective:
            ++stats.adjectives;
            break;
          case Pos::kNone:
            break;
        }
      }
      linkage_delete(linkage);
    }
    sentence_delete(sentence);
  }
};

SyntaxAnalyzer::SyntaxAnalyzer() : impl_(std::make_unique<Impl>()) {
  CaptureMessages capture;
  lg_messages.clear();
  {
    const std::lock_guard<std::mutex> lock(dictionary_mutex());
    const char* current = std::setlocale(LC_ALL, nullptr);
    const std::string saved = current != nullptr ? current : "C";
    impl_->dictionary = dictionary_create_lang("en");
    std::setlocale(LC_ALL, saved.c_str());
  }
  if (impl_->dictionary == nullptr) {
    char* dir = dictionary_get_data_dir();
    std::string where = dir != nullptr ? dir : "(no data directory)";
    free(dir);
    throw std::runtime_error(
        "SyntaxAnalyzer: cannot load link-grammar's English dictionary (package "
        "link-grammar-dictionaries-en; "
        "data directory " +
        where + "): " + joined_messages());
  }
  impl_->utf8 = make_utf8_locale();
  impl_->options = parse_options_create();
  parse_options_set_verbosity(impl_->options, 0);
  parse_options_set_linkage_limit(impl_->options, kLinkageLimit);
  parse_options_set_max_parse_time(impl_->options, kMaxParseSeconds);
  parse_options_set_spell_guess(impl_->options, 0);
  parse_options_set_repeatable_rand(impl_->options, true);
  parse_options_set_display_morphology(impl_->options, 0);
  parse_options_set_islands_ok(impl_->options, false);
}

SyntaxAnalyzer::~SyntaxAnalyzer() = default;

SyntaxStats SyntaxAnalyzer::analyze(std::string_view text) const {
  SyntaxStats stats;
  const std::vector<std::string> parts = sentences(text);
  if (parts.empty()) return stats;
  CaptureMessages capture;
  ThreadLocale locale(impl_->utf8);
  for (const std::string& sentence : parts) {
    for (const std::string& piece : pieces_of(sentence)) impl_->analyze_piece(clean_utf8(piece), stats);
  }
  lg_messages.clear();
  return stats;
}

}  // namespace parley
