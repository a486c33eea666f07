// The judge panel (parley/judge.h): prompts, identity masking, JSON verdicts with bounded
// re-asks, and aggregation over the panel. Prompt wording is parley's own.
#include "parley/judge.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include <fmt/format.h>

#include "core/hash.h"
#include "parley/protocol.h"
#include "protocols/json_reply.h"
#include "protocols/judge_masking.h"
#include "protocols/prompts.h"

namespace parley {

const char* judge_scale_name(JudgeScale scale) { return scale == JudgeScale::kLikert ? "likert" : "rubric"; }

const char* judge_aggregation_name(JudgeAggregation a) { return a == JudgeAggregation::kMean ? "mean" : "median"; }

namespace {

using Json = nlohmann::json;

enum class Mode { kScore, kCompare, kRank };

const char* role_of(Mode mode, JudgeScale scale) {
  switch (mode) {
    case Mode::kScore:
      return scale == JudgeScale::kLikert ? "judge_score" : "judge_rubric";
    case Mode::kCompare:
      return "judge_compare";
    case Mode::kRank:
      return "judge_rank";
  }
  return "judge";
}

// How one judge call shows the candidates: presentation order and the label of each shown one.
struct Presentation {
  std::vector<std::size_t> order;   // candidate index shown at position k
  std::vector<std::string> labels;  // label at position k
  std::string label_of(std::size_t candidate) const {
    for (std::size_t k = 0; k < order.size(); ++k)
      if (order[k] == candidate) return labels[k];
    return {};
  }
  std::size_t candidate_of(const std::string& label) const {
    for (std::size_t k = 0; k < labels.size(); ++k)
      if (labels[k] == label) return order[k];
    return order.size();
  }
};

Presentation present(Rng& rng, const std::vector<JudgedResponse>& candidates, bool mask) {
  Presentation p;
  p.order.resize(candidates.size());
  std::iota(p.order.begin(), p.order.end(), std::size_t{0});
  std::vector<std::string> names;
  for (const auto& c : candidates) names.push_back(c.agent);
  std::sort(names.begin(), names.end());
  const bool names_unique = std::adjacent_find(names.begin(), names.end()) == names.end();
  if (mask) std::shuffle(p.order.begin(), p.order.end(), rng);
  for (std::size_t k = 0; k < p.order.size(); ++k) {
    p.labels.push_back(mask || !names_unique ? fmt::format("Response {}", k + 1) : candidates[p.order[k]].agent);
  }
  return p;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '#' || c == '-'; }

// Replaces whole-word occurrences of `name` in `text` with `replacement`.
std::string replace_name(const std::string& text, const std::string& name, const std::string& replacement) {
  if (name.empty()) return text;
  std::string out;
  std::size_t at = 0;
  for (std::size_t hit = text.find(name); hit != std::string::npos; hit = text.find(name, hit + 1)) {
    const bool starts = hit == 0 || !name_char(text[hit - 1]);
    const bool ends = hit + name.size() == text.size() || !name_char(text[hit + name.size()]);
    if (!starts || !ends || hit < at) continue;
    out += text.substr(at, hit - at) + replacement;
    at = hit + name.size();
  }
  return out + text.substr(at);
}

// Masking removes identities from the texts too: a candidate's name becomes its label, any
// other agent of the debate becomes "another agent".
std::string masked_text(const std::string& text, const std::vector<JudgedResponse>& candidates,
                        const Presentation& shown, std::vector<std::string> names) {
  for (const auto& c : candidates) names.push_back(c.agent);
  return mask_names(text, std::move(names), [&](const std::string& name) {
    std::string label = "another agent";
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (candidates[i].agent == name) label = shown.label_of(i);
    return label;
  });
}

ReplySchema schema_for(Mode mode, JudgeScale scale, const std::vector<std::string>& labels) {
  const JsonField reason{"reason", JsonField::Kind::kString, 0, 0, {}, false};
  switch (mode) {
    case Mode::kScore:
      if (scale == JudgeScale::kLikert) return {{"score", JsonField::Kind::kInteger, 1, 5, {}, true}, reason};
      return {{"score", JsonField::Kind::kNumber, 0, 1, {}, true}, reason};
    case Mode::kCompare: {
      std::vector<std::string> allowed = labels;
      allowed.push_back("tie");
      return {{"winner", JsonField::Kind::kChoice, 0, 0, allowed, true}, reason};
    }
    case Mode::kRank:
      return {{"ranking", JsonField::Kind::kPermutation, 0, 0, labels, true}, reason};
  }
  return {};
}

std::string instruction_for(Mode mode, JudgeScale scale) {
  switch (mode) {
    case Mode::kScore:
      return scale == JudgeScale::kLikert
                 ? "Rate the response on a scale from 1 (wrong or irrelevant) to 5 (correct, well reasoned "
                   "and relevant)."
                 : "Rate the response with a number from 0 (wrong or irrelevant) to 1 (correct, well "
                   "reasoned and relevant).";
    case Mode::kCompare:
      return "Decide which response is better: correct, well reasoned and relevant. Answer \"tie\" only if "
             "they are equally good.";
    case Mode::kRank:
      return "Rank all responses from best to worst: correct, well reasoned and relevant first.";
  }
  return {};
}

// The stable part first (what to judge by, the reply's form, the task), the candidates last:
// a judge's calls within a debate then share their opening, which a prefix cache reuses.
std::string judge_prompt(const Task& task, Mode mode, JudgeScale scale, const std::vector<JudgedResponse>& candidates,
                         const Presentation& shown, const std::vector<std::string>& debaters, bool mask,
                         const ReplySchema& schema) {
  std::string out = "You are an impartial judge. Judge the response" + std::string(candidates.size() > 1 ? "s" : "") +
                    " to the task below on its merits. " + instruction_for(mode, scale) +
                    " Reply with only a JSON object of this form: " + describe_schema(schema) + "\n\nTask:\n" +
                    question_with_options(task);
  for (std::size_t k = 0; k < shown.order.size(); ++k) {
    const std::string& text = candidates[shown.order[k]].text;
    out += "\n\n" + shown.labels[k] + ":\n```\n" + (mask ? masked_text(text, candidates, shown, debaters) : text) +
           "\n```";
  }
  return out;
}

// One judge's valid verdict, with how that call showed the candidates.
struct JudgeVerdict {
  std::string judge;
  Presentation shown;
  std::optional<Json> verdict;  // nullopt: still malformed after the re-asks
  std::string problem;
};

struct Judgment {
  Mode mode;
  int round;
  std::vector<JudgedResponse> candidates;
};

// Asks one judge; never throws for a malformed verdict (a failed call still ends the debate).
Async<JudgeVerdict> consult(Debate& debate, Agent judge, Judgment judgment) {
  const JudgeSettings& settings = debate.judging();
  const std::vector<std::string> debaters = debaters_of(debate.transcript());
  // The shuffle and the sample index are keyed on what is judged, not drawn from the debate's
  // Rng: parallel turns reach their judgments in reply-arrival order, which must not change
  // the prompts (a replayed run has to hit the cache).
  HashBuilder key;
  key.add("judge").add(debate.seed()).add(debate.task().id).add(judge.name).add(judgment.round);
  key.add(static_cast<int>(judgment.mode));
  for (const auto& c : judgment.candidates) key.add(c.agent).add(c.text);
  Rng rng(key.value());
  JudgeVerdict result;
  result.judge = judge.name;
  result.shown = present(rng, judgment.candidates, settings.mask_identities);
  const ReplySchema schema = schema_for(judgment.mode, settings.scale, result.shown.labels);

  TurnInfo info;
  info.round = judgment.round;
  info.turn = role_of(judgment.mode, settings.scale);
  info.sample = static_cast<int>(key.value() & 0x7fffffff);
  for (std::size_t k = 0; k < result.shown.order.size(); ++k) {
    const std::size_t i = result.shown.order[k];
    const Answer answer = parse_answer(judgment.candidates[i].text, debate.task());
    info.shown.push_back(PeerView{judgment.candidates[i].agent, answer.value.value_or(""), answer.confidence,
                                  result.shown.labels[k]});
  }
  std::vector<ChatMessage> messages{ChatMessage{
      "user", judge_prompt(debate.task(), judgment.mode, settings.scale, judgment.candidates, result.shown, debaters,
                           settings.mask_identities, schema)}};
  auto verdict = co_await ask_verdict(debate, judge, std::move(messages), std::move(info), schema, settings.reasks);
  if (verdict) {
    result.verdict = std::move(*verdict);
  } else {
    result.problem = verdict.error().message;
  }
  co_return result;
}

Async<std::vector<JudgeVerdict>> consult_panel(Debate& debate, Judgment judgment) {
  std::vector<Async<JudgeVerdict>> calls;
  for (const Agent& judge : debate.judge_panel()) calls.push_back(consult(debate, judge, judgment));
  std::vector<JudgeVerdict> verdicts = co_await when_all(std::move(calls));
  for (const auto& v : verdicts) {
    if (!v.verdict) debate.event(judgment.round, "judge_failed", fmt::format("{}: {}", v.judge, v.problem));
  }
  co_return verdicts;
}

double aggregate(std::vector<double> values, JudgeAggregation how) {
  if (how == JudgeAggregation::kMean) return std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

// The "judge" event: what each judge was shown and said, and the aggregate.
void record_judgment(Debate& debate, const Judgment& judgment, const std::vector<JudgeVerdict>& verdicts,
                     const Json& result) {
  Json detail;
  detail["mode"] = judgment.mode == Mode::kScore ? "score" : judgment.mode == Mode::kCompare ? "compare" : "rank";
  for (const auto& v : verdicts) {
    Json entry;
    entry["judge"] = v.judge;
    for (std::size_t k = 0; k < v.shown.order.size(); ++k)
      entry["shown"][v.shown.labels[k]] = judgment.candidates[v.shown.order[k]].agent;
    if (v.verdict) {
      entry["verdict"] = *v.verdict;
      entry["verdict"].erase("reason");
    } else {
      entry["failed"] = v.problem;
    }
    detail["judges"].push_back(std::move(entry));
  }
  detail["result"] = result;
  debate.event(judgment.round, "judge", detail.dump());
}

double score_value(const Json& verdict, JudgeScale scale) {
  const double raw = verdict.at("score").get<double>();
  return scale == JudgeScale::kLikert ? (raw - 1.0) / 4.0 : raw;  // protocols paper: Likert 1–5 → [0, 1]
}

}  // namespace

std::string mask_names(const std::string& text, std::vector<std::string> names,
                       const std::function<std::string(const std::string&)>& label_of) {
  // Longest first; equal lengths by name, so that duplicates are adjacent for unique().
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out = text;
  for (const auto& name : names) out = replace_name(out, name, label_of(name));
  return out;
}

std::vector<std::string> debaters_of(const Transcript& transcript) {
  std::vector<std::string> debaters;
  for (const auto& m : transcript.messages)
    if (is_agent_answer_role(m.role)) debaters.push_back(m.agent);
  return debaters;
}

Judge::Judge(Debate& debate) : debate_(debate) {}

Async<ScoreVerdict> Judge::score(const JudgedResponse& response, int round) {
  Judgment judgment{Mode::kScore, round, {response}};
  const std::vector<JudgeVerdict> verdicts = co_await consult_panel(debate_, judgment);
  ScoreVerdict out;
  for (const auto& v : verdicts)
    if (v.verdict) out.judge_scores.push_back(score_value(*v.verdict, debate_.judging().scale));
  if (!out.judge_scores.empty()) out.score = aggregate(out.judge_scores, debate_.judging().aggregation);
  record_judgment(debate_, judgment, verdicts, out.score ? Json(*out.score) : Json(nullptr));
  co_return out;
}

Async<std::vector<ScoreVerdict>> Judge::score_each(const std::vector<JudgedResponse>& responses, int round) {
  std::vector<Async<ScoreVerdict>> calls;
  for (const auto& response : responses) calls.push_back(score(response, round));
  co_return co_await when_all(std::move(calls));
}

Async<CompareVerdict> Judge::compare(const JudgedResponse& first, const JudgedResponse& second, int round) {
  Judgment judgment{Mode::kCompare, round, {first, second}};
  const std::vector<JudgeVerdict> verdicts = co_await consult_panel(debate_, judgment);
  CompareVerdict out;
  out.failed = true;
  for (const auto& v : verdicts) {
    if (!v.verdict) continue;
    out.failed = false;
    const std::size_t winner = v.shown.candidate_of(v.verdict->at("winner").get<std::string>());
    if (winner == 0) ++out.votes_first;
    else if (winner == 1) ++out.votes_second;
    else ++out.ties;
  }
  if (out.votes_first != out.votes_second) out.winner = out.votes_first > out.votes_second ? 0 : 1;
  record_judgment(debate_, judgment, verdicts, out.winner ? Json(judgment.candidates[*out.winner].agent) : Json(nullptr));
  co_return out;
}

Async<RankVerdict> Judge::rank(const std::vector<JudgedResponse>& responses, int round) {
  Judgment judgment{Mode::kRank, round, responses};
  const std::vector<JudgeVerdict> verdicts = co_await consult_panel(debate_, judgment);
  const std::size_t n = responses.size();
  std::vector<std::vector<double>> positions(n);
  for (const auto& v : verdicts) {
    if (!v.verdict) continue;
    const Json& ranking = v.verdict->at("ranking");
    for (std::size_t k = 0; k < ranking.size(); ++k)
      positions[v.shown.candidate_of(ranking[k].get<std::string>())].push_back(static_cast<double>(k));
  }
  RankVerdict out;
  out.failed = n > 0 && positions[0].empty();
  out.order.resize(n);
  std::iota(out.order.begin(), out.order.end(), std::size_t{0});
  if (!out.failed) {
    for (std::size_t i = 0; i < n; ++i) out.position.push_back(aggregate(positions[i], debate_.judging().aggregation));
    std::stable_sort(out.order.begin(), out.order.end(),
                     [&](std::size_t a, std::size_t b) { return out.position[a] < out.position[b]; });
  }
  Json result = Json::array();
  if (!out.failed)
    for (std::size_t i : out.order) result.push_back(responses[i].agent);
  record_judgment(debate_, judgment, verdicts, out.failed ? Json(nullptr) : result);
  co_return out;
}

}  // namespace parley
