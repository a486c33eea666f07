// Reply text (docs/simulator.md, "Text"). Built by appending to one reserved string; templates
// use {w} and {v} for question words, {p} for a peer, {x} for the agent's answer, {y} for a
// peer's answer and {o} for the agent's previous answer. No sentence starts with a lone
// capital letter other than "I", so that the parser cannot mistake prose for an option letter.
#include "llm/simulator_text.h"

#include "parley/self_critique.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::sim {
namespace {

using Bank = std::array<std::string_view, 4>;

constexpr Bank kOpenInitial = {"Let me work through this step by step.",
                               "I will reason about this carefully before answering.",
                               "Let me break the question into parts.",
                               "To answer this, I first restate what is being asked."};
constexpr Bank kOpenRevise = {"I have read the other agents' answers and reconsidered my reasoning.",
                              "Let me weigh the other responses against my own reasoning.",
                              "Taking the other agents' arguments into account, I review my answer.",
                              "Before the final answer, I compare my reasoning with the others'."};
constexpr std::array<std::string_view, 8> kSteps = {
    "The question turns on the {w}.",
    "First, consider what the {w} implies here.",
    "Next, I relate the {w} to the {v}.",
    "The {w} constrains which answers remain possible.",
    "Checking the {w} against the {v} rules out some alternatives.",
    "Looking at the {w} more closely, the pattern becomes clearer.",
    "The key step is how the {w} affects the {v}.",
    "Putting the {w} and the {v} together narrows things down."};
constexpr std::array<std::string_view, 6> kGenericSteps = {
    "I need to keep track of each condition in turn.",
    "Each step should follow from the previous one.",
    "It helps to set aside whatever contradicts the setup.",
    "One more consistency check is worthwhile before concluding.",
    "The intermediate reasoning deserves a double check.",
    "The conditions have to hold at the same time."};
constexpr Bank kHedges = {"I think ", "Probably ", "It might be that ", "Perhaps "};
constexpr Bank kContrasts = {"However, the {w} could also be read another way.",
                             "But the {w} alone does not settle it.",
                             "However, that reading of the {w} needs a second look.",
                             "But on a closer look the {w} is consistent with the {v}."};
constexpr Bank kAgree = {"I agree with {p} that the answer is {x}.", "{p} also reaches {x}, which matches my reasoning.",
                         "Like {p}, I arrive at {x}.", "I agree with {p}: {x} holds up."};
constexpr Bank kDisagree = {"{p} argues {y}, but I do not find that convincing.",
                            "However, {p}'s answer of {y} overlooks a step.",
                            "{p} suggests {y}, but my check does not support it.",
                            "{p} prefers {y}; however, that conflicts with the conditions."};
constexpr std::array<std::string_view, 2> kConclude = {"So the answer is {x}.", "Therefore the answer is {x}."};
constexpr std::array<std::string_view, 2> kConcludeHedged = {"So the answer is probably {x}.",
                                                             "I think the answer is {x}, though I am not certain."};

// Content words of the question (letters only, at least five of them, not a stopword).
std::vector<std::string_view> question_words(std::string_view q) {
  static constexpr std::string_view kStop[] = {"which", "there", "their", "about", "would", "could",
                                               "should", "these", "those", "following", "where", "after",
                                               "before", "during", "while", "being", "every", "other",
                                               "answer", "question", "correct", "statement", "whose"};
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto lower_equal = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
    return true;
  };
  constexpr std::size_t kMaxWords = 8;
  std::vector<std::string_view> out;
  out.reserve(kMaxWords);
  std::size_t i = 0;
  while (i < q.size() && out.size() < kMaxWords) {
    while (i < q.size() && !letter(q[i])) ++i;
    std::size_t j = i;
    while (j < q.size() && letter(q[j])) ++j;
    const bool word_ends = j == q.size() || !(q[j] >= '0' && q[j] <= '9');
    const std::string_view word = q.substr(i, j - i);
    bool keep = word.size() >= 5 && word_ends;
    for (std::size_t k = 0; keep && k < std::size(kStop); ++k) keep = !lower_equal(word, kStop[k]);
    for (std::size_t k = 0; keep && k < out.size(); ++k) keep = !lower_equal(word, out[k]);
    if (keep) out.push_back(word);
    i = j;
  }
  return out;
}

class Writer {
 public:
  Writer(Rng& rng, std::size_t reserve) : rng_(rng) { out_.reserve(reserve); }

  struct Slots {
    std::string_view w, v, p, x, y, o;
  };

  // Appends one sentence, optionally after a hedge prefix (whose next letter is
  // lower-cased, "I" excepted).
  void sentence(std::string_view text, const Slots& slots, std::string_view prefix = {}) {
    if (!out_.empty() && out_.back() != '\n') out_.push_back(' ');
    out_ += prefix;
    const auto slot_at = [&](std::size_t i) { return text[i] == '{' && i + 2 < text.size() && text[i + 2] == '}'; };
    std::size_t i = 0;
    if (!prefix.empty() && !text.empty() && !slot_at(0)) {
      char c = text[0];
      const bool pronoun_i = c == 'I' && (text.size() == 1 || text[1] == ' ' || text[1] == '\'');
      if (c >= 'A' && c <= 'Z' && !pronoun_i) c = static_cast<char>(c - 'A' + 'a');
      out_.push_back(c);
      i = 1;
    }
    // The rest as it is, a run at a time, with each "{x}" replaced by its slot.
    while (i < text.size()) {
      const std::size_t open = text.find('{', i);
      if (open == std::string_view::npos) {
        out_.append(text.substr(i));
        break;
      }
      out_.append(text.substr(i, open - i));
      if (slot_at(open)) {
        out_ += slot(text[open + 1], slots);
        i = open + 3;
      } else {
        out_.push_back('{');
        i = open + 1;
      }
    }
  }
  void line(std::string_view text) {
    if (!out_.empty()) out_.push_back('\n');
    out_ += text;
  }
  template <std::size_t N>
  std::string_view pick(const std::array<std::string_view, N>& bank) {
    return bank[rng_.below(N)];
  }
  std::string& text() { return out_; }
  Rng& rng() { return rng_; }

 private:
  static std::string_view slot(char name, const Slots& s) {
    switch (name) {
      case 'w': return s.w;
      case 'v': return s.v;
      case 'p': return s.p;
      case 'x': return s.x;
      case 'y': return s.y;
      case 'o': return s.o;
    }
    return {};
  }
  Rng& rng_;
  std::string out_;
};

// Reasoning sentences until the reply reaches `target_bytes` (leaving room for the ending).
void write_reasoning(Writer& writer, const SimulatorParams& params, double confidence,
                     const std::vector<std::string_view>& words, std::size_t target_bytes) {
  const double hedge_probability = std::clamp(params.hedge_base + params.hedge_slope * (1.0 - confidence), 0.0, 1.0);
  Rng& rng = writer.rng();
  int guard = 0;
  std::string_view previous;
  while (writer.text().size() < target_bytes && ++guard < 64) {
    Writer::Slots slots;
    slots.w = "problem";
    slots.v = "conditions";
    if (!words.empty()) {
      const std::size_t first = rng.below(words.size());
      const std::size_t second = rng.below(words.size());
      slots.w = words[first];
      if (second != first) slots.v = words[second];
    }
    const double roll = rng.uniform();
    const bool contrast = roll >= hedge_probability &&
                          roll < hedge_probability + params.contrast_rate * (1.0 - hedge_probability);
    std::string_view sentence;
    do {
      if (contrast) sentence = writer.pick(kContrasts);
      else if (!words.empty() && rng.uniform() < 0.75) sentence = writer.pick(kSteps);
      else sentence = writer.pick(kGenericSteps);
    } while (sentence == previous);  // never the same sentence twice in a row
    previous = sentence;
    writer.sentence(sentence, slots, roll < hedge_probability ? writer.pick(kHedges) : std::string_view());
  }
}

// Peer references with stance, then why the agent kept or changed its answer.
void write_peer_references(Writer& writer, const Annotations& note, const Decision& decision) {
  constexpr std::size_t kMaxNamed = 6;
  bool anyone_disagreed = false;
  for (std::size_t i = 0; i < note.shown.size() && i < kMaxNamed; ++i) {
    const PeerView& peer = note.shown[i];
    Writer::Slots slots;
    slots.p = peer.label.empty() ? peer.agent : peer.label;  // as the prompt named it ("Negative")
    slots.x = decision.answer;
    slots.y = peer.answer;
    if (peer.answer.empty()) {
      writer.sentence("{p} did not give a clear final answer.", slots);
    } else if (peer.answer == decision.answer) {
      writer.sentence(writer.pick(kAgree), slots);
    } else {
      anyone_disagreed = true;
      writer.sentence(writer.pick(kDisagree), slots);
    }
  }
  if (note.shown.size() > kMaxNamed) writer.sentence("The remaining agents are split.", {});
  Writer::Slots slots;
  slots.p = decision.persuader;
  slots.x = decision.answer;
  slots.o = decision.previous;
  if (decision.switched && !decision.persuader.empty()) {
    writer.sentence("After reading {p}'s argument, I now think {x} is correct, not {o}.", slots);
  } else if (decision.switched) {
    writer.sentence("On reflection, I now think {x} is correct rather than {o}.", slots);
  } else if (anyone_disagreed) {
    writer.sentence("I have re-checked my reasoning, and I still hold {x}.", slots);
  }
}

void write_ending(Writer& writer, const Task& task, const Decision& decision) {
  Writer::Slots slots;
  slots.x = decision.answer;
  if (task.answer_type == AnswerType::kChoice && !decision.answer.empty()) {
    const auto index = option_index(decision.answer);
    if (index && *index < task.options.size()) {
      std::string_view option = task.options[*index];
      if (option.size() > 80) option = option.substr(0, 80);
      slots.y = option;
      writer.sentence("Option {x} (\"{y}\") fits best.", slots);
    }
  }
  writer.sentence(decision.confidence < 0.6 ? writer.pick(kConcludeHedged) : writer.pick(kConclude), slots);
  if (task.answer_type == AnswerType::kForecast) {
    // The protocols paper's forecast line: a signed percentage.
    writer.line("Impact: ");
    writer.text() += (decision.answer.empty() || decision.answer[0] == '-' ? "" : "+") + decision.answer + "%";
  } else {
    writer.line("Answer: ");
    writer.text() += decision.answer;
  }
  writer.line("Confidence: ");
  writer.text() += std::to_string(static_cast<int>(std::lround(decision.confidence * 100.0)));
  writer.text() += '%';
}

// The answer most of `shown` state, with how many state it; a tie goes to the answer named first.
std::pair<std::string_view, int> most_stated(const std::vector<PeerView>& shown) {
  std::vector<std::pair<std::string_view, int>> tally;
  for (const PeerView& member : shown) {
    if (member.answer.empty()) continue;
    auto it = std::find_if(tally.begin(), tally.end(), [&](const auto& entry) { return entry.first == member.answer; });
    if (it == tally.end()) {
      tally.emplace_back(member.answer, 1);
    } else {
      ++it->second;
    }
  }
  std::pair<std::string_view, int> best{"", 0};
  for (const auto& entry : tally) {
    if (entry.second > best.second) best = entry;
  }
  return best;
}

constexpr Bank kCertain = {"Clearly, ", "Certainly, ", "Definitely, ", "Without doubt, "};
constexpr Bank kCritiqueOpen = {"However, {y} could also be correct.", "But {y} deserves a serious look.",
                                "On the other hand, the case for {y} is not negligible.",
                                "However, one could argue for {y} instead."};
constexpr Bank kCritiqueDismiss = {"Still, the argument for {y} is clearly weaker.",
                                   "Yet the reasoning above certainly rules {y} out.",
                                   "But {y} definitely conflicts with the conditions.",
                                   "Still, {y} obviously fails the key step."};

// "B (Jupiter)" for a choice, the answer itself otherwise.
std::string answer_phrase(const Task& task, const std::string& answer) {
  if (task.answer_type == AnswerType::kChoice) {
    const auto index = option_index(answer);
    if (index && *index < task.options.size()) return answer + " (" + task.options[*index].substr(0, 60) + ")";
  }
  return answer;
}

std::string percent(double confidence) { return std::to_string(static_cast<int>(std::lround(confidence * 100.0))) + "%"; }

}  // namespace

std::string write_self_critique(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                                const TaskLatents& task, const Critique& critique, bool malformed, Rng& rng) {
  const Task& t = *note.task;
  const auto words = question_words(t.question);
  const double h = critique.hesitation;
  const double tokens = std::clamp(params.reasoning_tokens_base * profile.verbosity *
                                       (1.0 + params.reasoning_tokens_difficulty * task.difficulty) *
                                       rng.uniform(0.85, 1.15),
                                   params.reasoning_tokens_min, params.reasoning_tokens_max);
  Writer writer(rng, static_cast<std::size_t>(8.0 * tokens) + 512);
  const auto label = [&](CritiqueSection section) {
    writer.line(section_label(section));
    writer.text() += ": ";
  };
  label(CritiqueSection::kInitialAnswer);
  writer.text() += answer_phrase(t, critique.initial.answer);
  // The justification: hedged as a revision of confidence by hesitation; a confident agent
  // (low h) asserts.
  label(CritiqueSection::kInitialReasoning);
  const std::size_t reasoning_start = writer.text().size();
  if (h < 0.3) writer.sentence("The {w} settles this.", {words.empty() ? "problem" : words[0]}, writer.pick(kCertain));
  write_reasoning(writer, params, critique.initial.confidence * (1.0 - 0.5 * h), words,
                  reasoning_start + static_cast<std::size_t>(4.0 * tokens));
  label(CritiqueSection::kInitialConfidence);
  writer.text() += percent(critique.initial.confidence);

  // The forced critique: its length and hedging grow with h; a low-h critique dismisses itself.
  label(CritiqueSection::kSelfCritique);
  Writer::Slots slots;
  const std::string alternative = critique.alternative.empty() ? std::string("another answer")
                                                               : answer_phrase(t, critique.alternative);
  slots.y = alternative;
  writer.sentence(writer.pick(kCritiqueOpen), slots);
  const std::size_t critique_start = writer.text().size();
  write_reasoning(writer, params, 1.0 - h, words, critique_start + static_cast<std::size_t>(4.0 * tokens * (0.2 + h)));
  if (h < 0.4) writer.sentence(writer.pick(kCritiqueDismiss), slots);
  if (!critique.alternative.empty()) {
    label(CritiqueSection::kAlternativeAnswer);
    writer.text() += answer_phrase(t, critique.alternative);
  }
  label(CritiqueSection::kCritiqueConfidence);
  writer.text() += percent(critique.critique_confidence);
  if (malformed) return std::move(writer.text());

  label(CritiqueSection::kFinalAnswer);
  writer.text() += answer_phrase(t, critique.final.answer);
  label(CritiqueSection::kFinalConfidence);
  writer.text() += percent(critique.final.confidence);
  return std::move(writer.text());
}

std::string write_reply(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                        const TaskLatents& task, const Decision& decision, ReplyKind kind, Rng& rng) {
  if (kind == ReplyKind::kReask) {
    Writer writer(rng, 160);
    writer.sentence("Sorry, my previous reply did not end in the required format. Here is my final answer.", {});
    write_ending(writer, *note.task, decision);
    return std::move(writer.text());
  }
  // Reply length in tokens, then bytes at four per token (see estimate_tokens).
  const double tokens = std::clamp(params.reasoning_tokens_base * profile.verbosity *
                                       (1.0 + params.reasoning_tokens_difficulty * task.difficulty) *
                                       rng.uniform(0.85, 1.15),
                                   params.reasoning_tokens_min, params.reasoning_tokens_max);
  constexpr std::size_t kEndingBytes = 90;  // conclusion, answer and confidence lines
  const auto target = static_cast<std::size_t>(4.0 * tokens);
  Writer writer(rng, target + 256);
  const bool revising = turn_model(note) == TurnModel::kRevise;
  writer.sentence(revising ? writer.pick(kOpenRevise) : writer.pick(kOpenInitial), {});

  if (kind == ReplyKind::kFormatError) {
    // No question words, letters or digits: nothing in it may parse as an answer.
    write_reasoning(writer, params, decision.confidence, {}, target);
    writer.sentence("I need to think about this more before committing to a final answer.", {});
    return std::move(writer.text());
  }
  if (revising) write_peer_references(writer, note, decision);
  write_reasoning(writer, params, decision.confidence, question_words(note.task->question),
                  target > kEndingBytes ? target - kEndingBytes : 0);
  write_ending(writer, *note.task, decision);
  return std::move(writer.text());
}

std::string write_summary(const Annotations& note, Rng& rng) {
  Writer writer(rng, 128 + 64 * note.shown.size());
  writer.sentence("Summary of our group's discussion.", {});
  for (const PeerView& member : note.shown) {
    const std::string percent =
        member.confidence ? std::to_string(std::lround(*member.confidence * 100.0)) : std::string();
    Writer::Slots slots;
    slots.p = member.agent;
    slots.x = member.answer;
    slots.y = percent;
    if (member.answer.empty()) {
      writer.sentence("{p} did not reach a clear final answer.", slots);
    } else {
      writer.sentence(member.confidence ? "{p} concluded {x} with {y}% confidence." : "{p} concluded {x}.", slots);
    }
  }
  const auto [answer, votes] = most_stated(note.shown);
  const auto members = static_cast<int>(note.shown.size());
  const std::string share = std::to_string(votes) + " of " + std::to_string(members);
  Writer::Slots position;
  position.x = answer;
  position.y = share;
  if (votes == 0) {
    writer.sentence("No member reached a clear answer yet.", position);
  } else if (votes == members) {
    writer.sentence("The whole group agrees on {x}.", position);
  } else if (2 * votes > members) {
    writer.sentence("Most of the group ({y}) holds {x}.", position);
  } else {
    writer.sentence("The group is split; {x} has the most support ({y}).", position);
  }
  const auto words = question_words(note.task->question);
  Writer::Slots topic;
  topic.w = words.empty() ? "problem" : words[writer.rng().below(words.size())];
  topic.v = words.size() < 2 ? "conditions" : words[writer.rng().below(words.size())];
  writer.sentence(topic.w == topic.v ? "The discussion turned on the {w}." : "The discussion turned on the {w} and the {v}.",
                  topic);
  return std::move(writer.text());
}

std::string write_generic_reply() {
  return "This request carries no task I can work on, so I can only reply in general terms.\n"
         "Answer: unknown\nConfidence: 10%";
}

}  // namespace parley::sim
