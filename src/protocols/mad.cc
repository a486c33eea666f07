// mad: the Multi-Agent Debate baseline of Liang et al. (2024) as iMAD runs it (iMAD App. A.1).
// An affirmative and a negative debater argue in rounds; after each round a judge returns the
// JSON verdict {Preference, Supported Side, Reason, Debate Answer}. Preference = Yes ends the
// debate with the Debate Answer; otherwise the next round starts, up to max_rounds, and when no
// round settles it the judge picks the final answer from the reduced candidate set {OPTIONS2}.
// Every prompt is a template with the paper's placeholders, overridable from the experiment
// file. Each role keeps one append-only conversation (docs/architecture.md, "Prompt layout"):
// an opening that is the same in every round, then per turn what is new and the round's
// instruction, after the role's own earlier replies. The choices the paper leaves open are
// listed in docs/protocols.md ("mad").
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocols/json_reply.h"
#include "protocols/mad.h"
#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// ---- Templates and placeholders (iMAD App. A.1, "Placeholders") ------------------------------

// The paper's placeholders ({IMAGE} is for VQA, which parley does not run) and two of parley's:
// {FORMAT}, how a debater states its answer so that it can be parsed, and {JSON_FORMAT}, the
// judge's JSON object with the values each field may take.
constexpr std::array<std::string_view, 9> kPlaceholders = {"QUESTION", "OPTIONS",  "OPTIONS2", "TRANSCRIPT", "AFF_ANS",
                                                           "NEG_ANS",  "ROUND",    "FORMAT",   "JSON_FORMAT"};

// The placeholders an opening may use: what stays the same for the whole debate. {TRANSCRIPT}
// in an opening is the transcript the debate opens with (an escalated debate's single agent).
constexpr std::array<std::string_view, 4> kOpeningPlaceholders = {"QUESTION", "OPTIONS", "FORMAT", "TRANSCRIPT"};

// Default templates: parley's wording of the inputs, instructions and outputs App. A.1 gives
// for each QA role, split into each role's opening and its turns.
constexpr std::string_view kQuestionAndOptions = "\n\nQuestion: {QUESTION}\n\nOptions:\n{OPTIONS}";
constexpr std::string_view kOpeningTranscript = "\n\nDebate transcript before round 1:\n{TRANSCRIPT}";

constexpr std::string_view kAffirmativeRole = "You are the affirmative debater in a debate about the question below.";

constexpr std::string_view kNegativeRole = "You are the negative debater in a debate about the question below.";

constexpr std::string_view kJudgeRole =
    "You are the judge of a debate between an affirmative and a negative side about the question below. After each "
    "round, evaluate the accuracy and the justification of both sides. Set \"Preference\" to \"Yes\" if one side is "
    "clearly better and settles the question, \"No\" if neither does yet. Name that side (or the stronger one) in "
    "\"Supported Side\", explain briefly in \"Reason\", and give your answer, tentative if there is no preference, in "
    "\"Debate Answer\".";

constexpr std::string_view kAffirmativeFirst =
    "This is round {ROUND}. Answer the question: choose one answer strictly from the options and justify it step by "
    "step. This answer is the stance you will defend in the debate.\n{FORMAT}";

constexpr std::string_view kAffirmativeOpen =
    "This is round {ROUND}. Your stance: {AFF_ANS}\n\n"
    "Restate your stance and justify it step by step; it is the answer you will defend in the debate.\n{FORMAT}";

constexpr std::string_view kAffirmativeTurn =
    "This is round {ROUND}.\n\nDebate transcript since your last turn:\n{TRANSCRIPT}\n\n"
    "Your stance: {AFF_ANS}\n\nThe negative side's latest argument:\n{NEG_ANS}\n\n"
    "Agree with the negative side, or refuse its argument. If you refuse, choose an answer strictly from the "
    "options (keep your stance or switch to a different option) and justify it briefly.\n{FORMAT}";

constexpr std::string_view kNegativeTurn =
    "This is round {ROUND}.\n\nDebate transcript since your last turn:\n{TRANSCRIPT}\n\n"
    "The affirmative side's argument in this round:\n{AFF_ANS}\n\n"
    "Examine the affirmative argument and point out its problems. Disagree when warranted: give an alternative "
    "answer strictly from the options and justify it succinctly. If you agree, say so explicitly.\n{FORMAT}";

constexpr std::string_view kJudgeRound =
    "This is round {ROUND}.\n\nAffirmative side, this round:\n{AFF_ANS}\n\nNegative side, this round:\n{NEG_ANS}\n\n"
    "Give your verdict on this round. Reply with only a JSON object of this form: {JSON_FORMAT}";

constexpr std::string_view kJudgeFinal =
    "The debate has ended after round {ROUND} without a clear preference, and you must decide.\n\n"
    "Candidate answers proposed in the debate:\n{OPTIONS2}\n\n"
    "In \"Reason\", list the plausible candidates, strictly from the options, and say briefly why you choose "
    "one; give the final answer, which must be one of the candidate answers, in \"Debate Answer\". "
    "Reply with only a JSON object of this form: {JSON_FORMAT}";

// A role's default opening: the role, the question and its options and, in a debate that may
// open from a single agent's answer, that answer.
std::string default_opening(std::string_view role, bool opened) {
  std::string out = std::string(role).append(kQuestionAndOptions);
  if (opened) out.append(kOpeningTranscript);
  return out;
}

struct Placeholder {
  std::size_t at;  // offset of its '{'
  std::string_view name;
};

// The {NAME} tokens of a template (NAME: capital letters, digits, '_'); other braces are text,
// so a template may show a literal JSON example.
std::vector<Placeholder> placeholders_in(std::string_view text) {
  std::vector<Placeholder> out;
  for (std::size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    std::size_t end = open + 1;
    while (end < text.size() && (std::isupper(static_cast<unsigned char>(text[end])) ||
                                 std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (end > open + 1 && end < text.size() && text[end] == '}') out.push_back({open, text.substr(open + 1, end - open - 1)});
  }
  return out;
}

// "{A}, {B}" (`separator` ", ") for the placeholders named.
template <typename Names>
std::string braced(const Names& names, std::string_view separator) {
  std::string out;
  for (std::string_view name : names) out += fmt::format("{}{{{}}}", out.empty() ? "" : separator, name);
  return out;
}

// The config check of a template parameter: every placeholder must be one mad fills.
std::string check_template(const ParamValue& value) {
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) return "expected a text";
  std::vector<std::string_view> unknown;
  for (const Placeholder& p : placeholders_in(*text)) {
    if (std::find(kPlaceholders.begin(), kPlaceholders.end(), p.name) == kPlaceholders.end()) unknown.push_back(p.name);
  }
  if (unknown.empty()) return {};
  return fmt::format("unknown placeholder {} (mad fills {})", braced(unknown, ", "), braced(kPlaceholders, " "));
}

// The config check of an opening: a template, with only placeholders whose value is the same
// in every round, because the opening is sent once and then reused (a prefix cache keeps it).
std::string check_opening(const ParamValue& value) {
  if (std::string problem = check_template(value); !problem.empty()) return problem;
  std::vector<std::string_view> varying;
  for (const Placeholder& p : placeholders_in(std::get<std::string>(value))) {
    if (std::find(kOpeningPlaceholders.begin(), kOpeningPlaceholders.end(), p.name) == kOpeningPlaceholders.end())
      varying.push_back(p.name);
  }
  if (varying.empty()) return {};
  return fmt::format("an opening is sent once, at the start of the role's conversation, so it may use only {}, not {} "
                     "(their values change during the debate: they belong in a turn template)",
                     braced(kOpeningPlaceholders, " "), braced(varying, ", "));
}

bool uses(std::string_view text, std::string_view name) {
  for (const Placeholder& p : placeholders_in(text))
    if (p.name == name) return true;
  return false;
}

using Values = std::map<std::string, std::string, std::less<>>;

// The template with each placeholder replaced by its value, in one pass, so that a value which
// itself contains "{ROUND}" (a quoted message) is left as it is.
std::string fill(std::string_view text, const Values& values) {
  std::string out;
  std::size_t done = 0;
  for (const Placeholder& p : placeholders_in(text)) {
    const auto value = values.find(p.name);
    if (value == values.end()) continue;
    out.append(text.substr(done, p.at - done)).append(value->second);
    done = p.at + p.name.size() + 2;
  }
  return out.append(text.substr(done));
}

// ---- The option set --------------------------------------------------------------------------

// How an answer reads in a prompt: "B. Jupiter" for a choice, the answer itself otherwise.
std::string answer_text(const Task& task, const std::optional<std::string>& answer) {
  if (!answer) return "(no clear answer)";
  if (task.answer_type == AnswerType::kChoice) {
    for (std::size_t i = 0; i < task.options.size(); ++i)
      if (option_letter(i) == *answer) return *answer + ". " + task.options[i];
  }
  return *answer;
}

// {OPTIONS}. Open (numeric, free-text) tasks have no option list: any answer of the task's type
// is "in the option set".
std::string options_text(const Task& task) {
  switch (task.answer_type) {
    case AnswerType::kChoice:
      return lettered_options(task);
    case AnswerType::kNumber:
      return "(no fixed options: the answer is a number)";
    case AnswerType::kText:
      return "(no fixed options: the answer is a short text)";
    case AnswerType::kForecast:
      return "(no fixed options: the answer is a forecast, a signed percentage such as +0.3%)";
    case AnswerType::kLabel:
      return "(no fixed options: the answer is a label, named freely)";
  }
  return {};
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "\"" : ", \"") + item + "\"";
  return out;
}

// The "Debate Answer" field: an answer in the option set (iMAD App. A.1 validation), written as
// the judge likes (letter or option text, "42" or 42) and canonicalised by parley's answer
// parser. With `candidates` it must also be one of them ({OPTIONS2}, the finalisation).
JsonField debate_answer_field(const Task& task, std::optional<std::vector<std::string>> candidates) {
  JsonField field{"Debate Answer", JsonField::Kind::kAccepted, 0, 0, {}, true};
  if (candidates) {
    field.expected = "one of " + quoted_list(*candidates);
  } else if (task.answer_type == AnswerType::kChoice) {
    std::vector<std::string> letters;
    for (std::size_t i = 0; i < task.options.size(); ++i) letters.push_back(option_letter(i));
    field.expected = "one of " + quoted_list(letters) + " (an option letter or the option's text)";
  } else {
    field.expected = task.answer_type == AnswerType::kNumber     ? "a number"
                     : task.answer_type == AnswerType::kForecast ? "a signed percentage such as \"+0.3%\""
                                                                 : "a short answer";
  }
  field.accept = [&task, candidates = std::move(candidates)](const std::string& given) -> std::optional<std::string> {
    // A bare value first ("B", "Jupiter", "42"); else as an answer statement's payload, which
    // also reads "C. Venus" and "(C) Venus" (as a bare line those look like an option listing).
    std::optional<std::string> answer = parse_answer(given, task).value;
    if (!answer) answer = parse_answer("Answer: " + given, task).value;
    if (!answer) answer = parse_answer("Impact: " + given, task).value;  // a forecast given bare
    if (!answer || !candidates) return answer;
    for (const auto& c : *candidates)
      if (same_answer(task, *answer, c)) return c;
    return std::nullopt;
  };
  return field;
}

// ---- Verdicts (iMAD App. A.1, "Structured JSON Output") ---------------------------------------

ReplySchema round_schema(const Task& task) {
  return {{"Preference", JsonField::Kind::kChoice, 0, 0, {"Yes", "No"}, true},
          // Required when Preference is "Yes" (checked in verdict_problem).
          {"Supported Side", JsonField::Kind::kChoice, 0, 0, {"Affirmative", "Negative"}, false},
          {"Reason", JsonField::Kind::kString, 0, 0, {}, true},
          debate_answer_field(task, std::nullopt)};
}

// Without candidates (nobody stated a parsable answer) the whole option set.
ReplySchema final_schema(const Task& task, const std::optional<std::vector<std::string>>& candidates) {
  return {{"Reason", JsonField::Kind::kString, 0, 0, {}, true}, debate_answer_field(task, candidates)};
}

// "" for an acceptable verdict, otherwise what is wrong with it: no valid JSON object, text
// outside the object, an invalid value, or an answer outside the option set.
std::string verdict_problem(std::string_view reply, const ReplySchema& schema) {
  const auto read = read_json_reply(reply, schema);
  if (!read) return read.error().message;
  if (!is_bare_json_object(reply)) return "the reply must be the JSON object alone, with no text outside it";
  if (read->value("Preference", "") == "Yes" && !read->contains("Supported Side"))
    return "field \"Supported Side\" is required when \"Preference\" is \"Yes\"";
  return {};
}

StructuredAsk structured(const ReplySchema& schema, int reasks) {
  StructuredAsk ask;
  ask.check = [schema](std::string_view reply) { return verdict_problem(reply, schema); };
  ask.format_reminder = "Reply with only a JSON object of this form: " + describe_schema(schema);
  ask.reasks = reasks;
  return ask;
}

// ---- The debate's shared state -----------------------------------------------------------------

enum class Role { kAffirmative, kNegative, kJudge };

// A role's prompts: its opening, sent once, and the template of the turn at hand.
struct RolePrompt {
  Role role;
  std::string_view opening;
  std::string_view turn;
};

// What the placeholders are filled from, and each role's conversation. The running transcript
// is synchronised at the start of each round (iMAD App. A.1, "Shared Context and Memory
// Synchronization"): every role sees every message of the finished rounds; the current round's
// messages reach the negative and the judge through {AFF_ANS} and {NEG_ANS}. A role's
// conversation is append-only: its opening, then per turn the synchronised messages it has not
// been shown yet ({TRANSCRIPT}) with the turn's other values, then its own reply.
class DebateState {
 public:
  DebateState(const Task& task, const std::optional<MadOpening>& opening) : task_(task) {
    if (!opening) return;
    stance_ = opening->stance;
    stance_set_ = true;
    note_candidate(opening->stance);
    log_.push_back(Entry{next_id_++, fmt::format("[Single agent] answer {}:\n{}", answer_text(task_, opening->stance),
                                                 opening->transcript)});
  }

  void start_round(int round) { round_ = round; }
  void finish_round(const std::string& judge_verdict) {
    record(aff_id_, "Affirmative", aff_->text);
    record(neg_id_, "Negative", neg_->text);
    if (!judge_verdict.empty()) record(judge_id_, "Judge", judge_verdict);
  }

  // The messages of the role's next call: its conversation so far, then a user message with
  // the turn template filled from `values` (after the opening, in the role's first message).
  // Messages the turn shows through {AFF_ANS} or {NEG_ANS} are left out of its {TRANSCRIPT},
  // and are not shown again.
  std::vector<ChatMessage> prompt(const RolePrompt& prompt, Values values) {
    Conversation& c = conversation(prompt.role);
    std::string text;
    const bool first = c.messages.empty();
    if (first) {
      values["TRANSCRIPT"] = unseen(c, {}, prompt.opening, "(none: the debate starts with round 1)");
      text = fill(prompt.opening, values);
    }
    std::set<int> shown_now;
    if (uses(prompt.turn, "AFF_ANS") && prompt.role != Role::kAffirmative && aff_) shown_now.insert(aff_id_);
    if (uses(prompt.turn, "NEG_ANS") && neg_) shown_now.insert(neg_id_);
    values["TRANSCRIPT"] = unseen(c, shown_now, prompt.turn,
                                  first ? "(none: this is the first round)" : "(nothing new since your last turn)");
    c.known.insert(shown_now.begin(), shown_now.end());
    const std::string turn = fill(prompt.turn, values);
    text += (text.empty() || turn.empty() ? "" : "\n\n") + turn;
    c.messages.push_back(ChatMessage{"user", std::move(text)});
    return c.messages;
  }

  void set_affirmative(Turn turn) {
    if (!stance_set_) stance_ = turn.answer.value;  // the round-1 answer is the affirmative's stance
    stance_set_ = true;
    note_candidate(turn.answer.value);
    aff_id_ = replied(Role::kAffirmative, turn.text);
    aff_ = std::move(turn);
  }
  void set_negative(Turn turn) {
    note_candidate(turn.answer.value);
    neg_id_ = replied(Role::kNegative, turn.text);
    neg_ = std::move(turn);
  }
  // The judge's reply, valid or not, continues its own conversation; only a valid verdict
  // enters the synchronised transcript (finish_round).
  void set_judge_reply(const std::string& reply) { judge_id_ = replied(Role::kJudge, reply); }
  void set_judge_answer(const std::string& judge, const std::string& answer) {
    judge_view_ = PeerView{judge, answer, std::nullopt, "Judge"};
    note_candidate(answer);
  }

  // Placeholder values for `speaker` ("affirmative", "negative", "judge", "final"), but for
  // {TRANSCRIPT}, which depends on the role's conversation (prompt()). For the affirmative
  // {AFF_ANS} is its fixed stance, passed in every round to remind it of its side; for the
  // others it is the affirmative's latest message (App. A.1, "Placeholders").
  Values values(std::string_view speaker, std::string json_format = {}) const {
    Values v;
    v["QUESTION"] = task_.question;
    v["OPTIONS"] = options_text(task_);
    v["OPTIONS2"] = options2_text();
    v["AFF_ANS"] = speaker == "affirmative" ? answer_text(task_, stance_) : aff_ ? aff_->text : "(none yet)";
    v["NEG_ANS"] = neg_ ? neg_->text : "(none yet)";
    v["ROUND"] = std::to_string(round_);
    v["FORMAT"] = format_instruction(task_);
    v["JSON_FORMAT"] = std::move(json_format);
    return v;
  }

  // Who is in a call's context, besides the caller: the opponent's latest turn, and the judge
  // once one of its verdicts is in the transcript.
  std::vector<PeerView> shown_to_affirmative() const { return with_judge({view(*neg_, "Negative")}); }
  std::vector<PeerView> shown_to_negative() const { return with_judge({view(*aff_, "Affirmative")}); }
  std::vector<PeerView> shown_to_judge() const { return {view(*aff_, "Affirmative"), view(*neg_, "Negative")}; }

  // {OPTIONS2}: every distinct answer any agent proposed during the debate, in order of first
  // appearance (App. A.1); the whole option set when nobody stated a parsable answer.
  std::optional<std::vector<std::string>> candidates() const {
    if (candidates_.empty()) return std::nullopt;
    return candidates_;
  }

  // The answer to fall back on when the finalisation verdict is unusable: the judge's latest
  // answer, else the affirmative's, else the negative's.
  std::optional<std::string> fallback_answer() const {
    if (judge_view_) return judge_view_->answer;
    if (aff_ && aff_->answer.value) return aff_->answer.value;
    if (neg_) return neg_->answer.value;
    return std::nullopt;
  }

 private:
  // One message of the synchronised transcript.
  struct Entry {
    int id;            // which message of the debate it is
    std::string text;  // as {TRANSCRIPT} shows it, headed "[Round 2] Negative:"
  };
  struct Conversation {
    std::vector<ChatMessage> messages;
    std::set<int> known;  // the debate messages already in it
  };

  Conversation& conversation(Role role) { return conversations_[static_cast<std::size_t>(role)]; }

  // {TRANSCRIPT} for template `text` of `c`'s role: the synchronised messages it has not been
  // shown, but those in `shown_now`, joined; `nothing` when there are none. They count as shown
  // when the template uses {TRANSCRIPT}.
  std::string unseen(Conversation& c, const std::set<int>& shown_now, std::string_view text, std::string nothing) {
    std::string out;
    std::vector<int> ids;
    for (const Entry& e : log_) {
      if (c.known.count(e.id) != 0 || shown_now.count(e.id) != 0) continue;
      out += (out.empty() ? "" : "\n\n") + e.text;
      ids.push_back(e.id);
    }
    if (uses(text, "TRANSCRIPT")) c.known.insert(ids.begin(), ids.end());
    return out.empty() ? nothing : out;
  }
  // Appends a role's reply to its conversation; returns the reply's message id.
  int replied(Role role, const std::string& reply) {
    Conversation& c = conversation(role);
    c.messages.push_back(ChatMessage{"assistant", reply});
    c.known.insert(next_id_);
    return next_id_++;
  }
  static PeerView view(const Turn& turn, std::string label) {
    return PeerView{turn.agent, turn.answer.value.value_or(""), turn.answer.confidence, std::move(label)};
  }
  std::vector<PeerView> with_judge(std::vector<PeerView> shown) const {
    if (judge_view_) shown.push_back(*judge_view_);
    return shown;
  }
  void record(int id, std::string_view role, const std::string& text) {
    log_.push_back(Entry{id, fmt::format("[Round {}] {}:\n{}", round_, role, text)});
  }
  void note_candidate(const std::optional<std::string>& answer) {
    if (!answer) return;
    for (const auto& c : candidates_)
      if (same_answer(task_, *answer, c)) return;
    candidates_.push_back(*answer);
  }
  std::string options2_text() const {
    if (candidates_.empty()) return options_text(task_);
    std::string out;
    for (const auto& c : candidates_) out += (out.empty() ? "" : "\n") + answer_text(task_, c);
    return out;
  }

  const Task& task_;
  int round_ = 0;
  int next_id_ = 0;
  std::vector<Entry> log_;  // the synchronised transcript: the opening, then every finished round
  std::array<Conversation, 3> conversations_;
  std::optional<std::string> stance_;
  bool stance_set_ = false;
  std::optional<Turn> aff_, neg_;
  int aff_id_ = -1, neg_id_ = -1, judge_id_ = -1;
  std::optional<PeerView> judge_view_;  // the judge's latest valid verdict
  std::vector<std::string> candidates_;
};

TurnInfo turn_info(int round, std::string turn, std::vector<PeerView> shown) {
  TurnInfo info;
  info.round = round;
  info.turn = std::move(turn);
  info.shown = std::move(shown);
  return info;
}

// The per-round event: the judge's verdict without its reason, or why there is none.
std::string verdict_event(const std::string& judge, const StructuredReply& reply, const std::optional<Json>& verdict) {
  Json detail{{"judge", judge}};
  if (verdict) {
    for (const auto& [key, value] : verdict->items())
      if (key != "Reason") detail[key] = value;
  } else {
    detail["failed"] = reply.problem;
  }
  return detail.dump();
}

// ---- The protocol ------------------------------------------------------------------------------

}  // namespace

Async<std::optional<std::string>> run_mad(Debate& debate, const MadSettings& settings, std::vector<Agent> debaters,
                                          std::optional<MadOpening> opening) {
  const Task& task = debate.task();
  const MadTemplates& templates = settings.templates;
  const int max_rounds = settings.max_rounds;
  // Roles (App. A.1, "Roles and Outputs"): the debaters given, the judge from the panel (the
  // protocol's `judges:`, else the pool's first agent).
  const Agent& affirmative = debaters.at(0);
  const Agent& negative = debaters.at(1);
  const Agent judge = debate.judge_panel().front();
  const int reasks = debate.judging().reasks;
  const bool opened = opening.has_value();
  DebateState state(task, opening);
  const RolePrompt negative_prompt{Role::kNegative, templates.negative_opening, templates.negative};
  const RolePrompt judge_prompt{Role::kJudge, templates.judge_opening, templates.judge_round};

  for (int round = 1; round <= max_rounds; ++round) {
    state.start_round(round);
    // The affirmative answers the question in round 1 (or restates the single agent's answer it
    // was opened with); later it defends or changes its answer.
    const std::string& first = opened ? templates.affirmative_open : templates.affirmative_first;
    const RolePrompt affirmative_prompt{Role::kAffirmative, templates.affirmative_opening,
                                        round == 1 ? first : templates.affirmative};
    std::vector<ChatMessage> messages = state.prompt(affirmative_prompt, state.values("affirmative"));
    TurnInfo info = turn_info(round, "affirmative", round == 1 ? std::vector<PeerView>{} : state.shown_to_affirmative());
    state.set_affirmative(co_await debate.ask(affirmative, std::move(messages), std::move(info)));

    // The negative examines the affirmative's argument and disagrees when warranted.
    messages = state.prompt(negative_prompt, state.values("negative"));
    info = turn_info(round, "negative", state.shown_to_negative());
    state.set_negative(co_await debate.ask(negative, std::move(messages), std::move(info)));

    // The judge's verdict, validated and re-asked; a verdict still invalid counts as "No".
    const ReplySchema schema = round_schema(task);
    messages = state.prompt(judge_prompt, state.values("judge", describe_schema(schema)));
    info = turn_info(round, "judge_mad", state.shown_to_judge());
    StructuredAsk ask = structured(schema, reasks);
    const StructuredReply reply = co_await debate.ask_structured(judge, std::move(messages), std::move(info), std::move(ask));
    state.set_judge_reply(reply.text);
    std::optional<Json> verdict;
    if (reply.valid()) verdict = read_json_reply(reply.text, schema).value();
    debate.event(round, "verdict", verdict_event(judge.name, reply, verdict));
    if (verdict) state.set_judge_answer(judge.name, verdict->at("Debate Answer").get<std::string>());
    state.finish_round(verdict ? verdict->dump() : std::string());

    // Preference = Yes: a side settled the question and the debate ends at once.
    if (verdict && verdict->at("Preference") == "Yes") {
      const std::string answer = verdict->at("Debate Answer").get<std::string>();
      debate.event(round, "stop", Json{{"reason", "preference"}, {"round", round}, {"answer", answer}}.dump());
      co_return answer;
    }
  }

  // Finalisation after max_rounds: the judge, whose conversation holds the whole debate, commits
  // to one of the candidates {OPTIONS2}.
  const std::optional<std::vector<std::string>> candidates = state.candidates();
  const ReplySchema schema = final_schema(task, candidates);
  const RolePrompt final_prompt{Role::kJudge, templates.judge_opening, templates.judge_final};
  std::vector<ChatMessage> messages = state.prompt(final_prompt, state.values("final", describe_schema(schema)));
  TurnInfo info = turn_info(max_rounds, "judge_final", state.shown_to_judge());
  StructuredAsk ask = structured(schema, reasks);
  const StructuredReply reply = co_await debate.ask_structured(judge, std::move(messages), std::move(info), std::move(ask));
  Json stop{{"round", max_rounds}, {"candidates", candidates.value_or(std::vector<std::string>{})}};
  std::optional<std::string> answer;
  if (reply.valid()) {
    answer = read_json_reply(reply.text, schema).value().at("Debate Answer").get<std::string>();
    stop["reason"] = "max_rounds";
  } else {
    // The finalisation verdict is unusable after its re-asks: fall back (docs/protocols.md).
    answer = state.fallback_answer();
    stop["reason"] = "judge_failed";
    stop["problem"] = reply.problem;
  }
  stop["answer"] = answer ? Json(*answer) : Json(nullptr);
  debate.event(max_rounds, "stop", stop.dump());
  co_return answer;
}

namespace {

class Mad final : public Protocol {
 public:
  explicit Mad(MadSettings settings) : settings_(std::move(settings)) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    co_return co_await run_mad(debate, settings_, debate.agents(2), std::nullopt);
  }

 private:
  MadSettings settings_;
};

ParamSpec template_param(std::string name, std::string text, std::string help) {
  ParamSpec spec{std::move(name), ParamKind::kString, std::move(text), std::nullopt, std::nullopt, std::move(help)};
  spec.check = check_template;
  return spec;
}

ParamSpec opening_param(std::string name, std::string_view role, bool opened, std::string help) {
  ParamSpec spec = template_param(std::move(name), default_opening(role, opened), std::move(help));
  spec.check = check_opening;
  return spec;
}

}  // namespace

std::vector<ParamSpec> mad_params(bool opened) {
  std::vector<ParamSpec> params = {
      {"max_rounds", ParamKind::kInt, std::int64_t{5}, 1, 20, "debate rounds before the judge must decide"}};
  params.push_back(opening_param("affirmative_opening_prompt", kAffirmativeRole, opened,
                                 "affirmative's opening, sent once, before its first turn"));
  params.push_back(
      opening_param("negative_opening_prompt", kNegativeRole, opened, "negative's opening, sent once, before its first turn"));
  params.push_back(
      opening_param("judge_opening_prompt", kJudgeRole, opened, "judge's opening, sent once, before its first verdict"));
  params.push_back(template_param("affirmative_first_prompt", std::string(kAffirmativeFirst), "affirmative's round-1 turn"));
  if (opened) {
    params.push_back(template_param("affirmative_open_prompt", std::string(kAffirmativeOpen),
                                    "affirmative's round-1 turn when the debate starts from the single agent's answer"));
  }
  params.push_back(template_param("affirmative_prompt", std::string(kAffirmativeTurn), "affirmative's turn in rounds 2.."));
  params.push_back(template_param("negative_prompt", std::string(kNegativeTurn), "negative's turn"));
  params.push_back(template_param("judge_round_prompt", std::string(kJudgeRound), "judge's per-round turn (JSON verdict)"));
  params.push_back(
      template_param("judge_final_prompt", std::string(kJudgeFinal), "judge's finalisation turn over {OPTIONS2}"));
  return params;
}

MadSettings mad_settings(const ProtocolParams& p, bool opened) {
  MadSettings settings;
  settings.max_rounds = static_cast<int>(p.integer("max_rounds"));
  settings.templates.affirmative_opening = p.text("affirmative_opening_prompt");
  settings.templates.negative_opening = p.text("negative_opening_prompt");
  settings.templates.judge_opening = p.text("judge_opening_prompt");
  settings.templates.affirmative_first = p.text("affirmative_first_prompt");
  if (opened) settings.templates.affirmative_open = p.text("affirmative_open_prompt");
  settings.templates.affirmative = p.text("affirmative_prompt");
  settings.templates.negative = p.text("negative_prompt");
  settings.templates.judge_round = p.text("judge_round_prompt");
  settings.templates.judge_final = p.text("judge_final_prompt");
  return settings;
}

ProtocolInfo mad_protocol() {
  ProtocolInfo info{"mad",
          "affirmative vs negative debaters, a judge stops on a clear preference or decides after max_rounds",
          "Liang et al. 2024, Encouraging Divergent Thinking in Large Language Models through Multi-Agent Debate "
          "(as in iMAD App. A.1)",
          mad_params(false),
          [](const ProtocolParams& p) { return std::make_unique<Mad>(mad_settings(p, false)); }};
  info.debaters = [](const ProtocolParams&) -> std::size_t { return 2; };
  return info;
}

}  // namespace parley
