// MACI's CRIT judge panel (parley/judge.h, Judge::crit; MACI App. E): each judge rates each
// argument alone on three sub-scores, the composite recomputed as their mean (App. E.1).
//
// One call per (judge, argument), not one per judge with the round's arguments: App. E.4/E.7
// show a judge "only the argument text, cited spans and minimal task context" with "opponent
// text masked", and E.5 rates one argument per prompt; a batch would show each argument beside
// its opponents' and let their order and each other anchor the scores. The cost is K·N calls a
// round instead of K; they share their opening (instructions, the question), which a prefix
// cache reuses, and a malformed reply re-asks one argument, not the round.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/hash.h"
#include "parley/judge.h"
#include "parley/protocol.h"
#include "protocols/json_reply.h"
#include "protocols/judge_masking.h"
#include "protocols/prompts.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// App. E.5's reply as JSON (the reading guide's suggestion, A.4): the three sub-scores, the
// judge's own composite (recorded, never used) and a brief justification.
ReplySchema crit_schema() {
  return {{"evidence", JsonField::Kind::kNumber, 0, 1, {}, true},
          {"logic", JsonField::Kind::kNumber, 0, 1, {}, true},
          {"relevance", JsonField::Kind::kNumber, 0, 1, {}, true},
          {"composite", JsonField::Kind::kNumber, 0, 1, {}, false},
          {"justification", JsonField::Kind::kString, 0, 0, {}, false}};
}

// The argument as the judge sees it, its author and every other agent named only by role.
std::string argument_block(const JudgedArgument& argument, const std::vector<std::string>& agents, bool mask) {
  std::string out = "Claim: " + argument.claim + "\nReasoning: " + argument.justification + "\nCited evidence:";
  if (argument.spans.empty()) out += " none";
  for (const auto& span : argument.spans) out += "\n[" + span.id + "] " + span.text;
  if (!mask) return out;
  return mask_names(out, agents, [&](const std::string& name) {
    return name == argument.agent ? std::string("the author") : std::string("another agent");
  });
}

// Stable part first (criteria, reply form, the question), the argument last and fenced: a
// judge's calls in a debate share their opening (docs/architecture.md, "Prompt layout").
std::string crit_prompt(const Task& task, const std::string& argument, const ReplySchema& schema) {
  return "You are an impartial judge of argument quality. Rate the argument below, made in a debate on the "
         "question, on three criteria, each a number from 0 (not at all) to 1 (fully): evidence support "
         "(its claims are backed by the evidence it cites), logical coherence (its reasoning is valid and "
         "free of contradictions) and query relevance (it directly addresses the question). Judge only what "
         "is shown. Reply with only a JSON object of this form: " +
         describe_schema(schema) + "\n\nQuestion:\n" + question_with_options(task) + "\n\nArgument:\n```\n" +
         argument + "\n```";
}

// One judge's verdict on one argument.
struct CritCall {
  std::size_t judge = 0;     // panel position
  std::size_t argument = 0;  // input position
  std::size_t shown_at = 0;  // its place in the judge's order this round
  std::optional<Json> verdict;
  std::string problem;
};

struct Round {
  int round = 0;
  double temperature = kCritTemperature;
  std::vector<std::string> agents;  // every agent whose name is masked
};

Async<CritCall> consult(Debate& debate, const Agent& judge, const JudgedArgument& argument, const Round& round,
                        CritCall call) {
  const JudgeSettings& settings = debate.judging();
  const ReplySchema schema = crit_schema();
  TurnInfo info;
  info.round = round.round;
  info.turn = "judge_crit";
  info.temperature = round.temperature;
  // As judge.cc: the sample index is keyed on what is judged, so that two arguments' calls
  // never look like repeats of one request.
  HashBuilder key;
  key.add("crit").add(debate.seed()).add(debate.task().id).add(judge.name).add(round.round);
  key.add(argument.agent).add(argument.index).add(argument.claim);
  info.sample = static_cast<int>(key.value() & 0x7fffffff);
  info.shown.push_back(
      PeerView{argument.agent, argument.position, std::nullopt, "Argument", ArgumentRef{round.round, argument.index}});
  const std::string shown = argument_block(argument, round.agents, settings.mask_identities);
  std::vector<ChatMessage> messages{ChatMessage{"user", crit_prompt(debate.task(), shown, schema)}};
  auto verdict = co_await ask_verdict(debate, judge, std::move(messages), std::move(info), schema, settings.reasks);
  if (verdict) {
    call.verdict = std::move(*verdict);
  } else {
    call.problem = verdict.error().message;
  }
  co_return call;
}

maci::CritScores scores_of(const Json& verdict) {
  return {verdict.at("evidence").get<double>(), verdict.at("logic").get<double>(),
          verdict.at("relevance").get<double>()};
}

// The order a judge meets the round's arguments in (App. E.4: "items are randomized per
// round"). Keyed on the judge, the round and what is judged rather than drawn from the debate's
// Rng, as in judge.cc: deterministic under the seed and independent of reply-arrival order.
std::vector<std::size_t> order_for(const Debate& debate, const Agent& judge, const std::vector<JudgedArgument>& arguments,
                                   int round, bool shuffle) {
  std::vector<std::size_t> order(arguments.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (!shuffle) return order;
  HashBuilder key;
  key.add("crit_order").add(debate.seed()).add(debate.task().id).add(judge.name).add(round);
  for (const auto& a : arguments) key.add(a.agent).add(a.index).add(a.claim);
  Rng rng(key.value());
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

// The "judge" event: per argument, each judge's sub-scores, recomputed composite and stated one.
void record_crit(Debate& debate, const Round& round, const std::vector<Agent>& panel,
                 const std::vector<JudgedArgument>& arguments, const std::vector<CritCall>& calls,
                 const std::vector<CritVerdict>& verdicts) {
  Json detail;
  detail["mode"] = "crit";
  detail["temperature"] = round.temperature;
  detail["arguments"] = Json::array();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    Json entry{{"agent", arguments[i].agent}, {"index", arguments[i].index}, {"judges", Json::array()}};
    for (std::size_t k = 0; k < panel.size(); ++k) entry["judges"].push_back(Json{{"judge", panel[k].name}});
    detail["arguments"].push_back(std::move(entry));
  }
  for (const auto& call : calls) {
    Json& entry = detail["arguments"][call.argument]["judges"][call.judge];
    entry["shown_at"] = call.shown_at;
    const auto& scores = verdicts[call.argument].scores[call.judge];
    if (!scores) {
      entry["failed"] = call.problem;
      continue;
    }
    entry["evidence"] = scores->evidence_support;
    entry["logic"] = scores->logical_coherence;
    entry["relevance"] = scores->query_relevance;
    entry["composite"] = *verdicts[call.argument].composites[call.judge];
    if (call.verdict->contains("composite")) entry["stated_composite"] = call.verdict->at("composite");
  }
  debate.event(round.round, "judge", detail.dump());
}

}  // namespace

Async<std::vector<CritVerdict>> Judge::crit(const std::vector<JudgedArgument>& arguments, int round,
                                            double temperature) {
  const std::vector<Agent>& panel = debate_.judge_panel();
  const bool mask = debate_.judging().mask_identities;
  Round context{round, temperature, debaters_of(debate_.transcript())};
  for (const auto& a : arguments) context.agents.push_back(a.agent);
  // Every (judge, argument) call at once, each judge's in its own order; results are placed by
  // their (judge, argument), never by arrival.
  std::vector<Async<CritCall>> pending;
  for (std::size_t k = 0; k < panel.size(); ++k) {
    const std::vector<std::size_t> order = order_for(debate_, panel[k], arguments, round, mask);
    for (std::size_t at = 0; at < order.size(); ++at)
      pending.push_back(consult(debate_, panel[k], arguments[order[at]], context, CritCall{k, order[at], at, {}, {}}));
  }
  const std::vector<CritCall> calls = co_await when_all(std::move(pending));
  std::vector<CritVerdict> out(arguments.size());
  for (auto& verdict : out) {
    verdict.scores.resize(panel.size());
    verdict.composites.resize(panel.size());
  }
  for (const auto& call : calls) {
    if (!call.verdict) {
      debate_.event(round, "judge_failed",
                    fmt::format("{}: argument {} of {}: {}", panel[call.judge].name, arguments[call.argument].index,
                                arguments[call.argument].agent, call.problem));
      continue;
    }
    const maci::CritScores scores = scores_of(*call.verdict);
    out[call.argument].scores[call.judge] = scores;
    out[call.argument].composites[call.judge] = maci::crit_composite(scores);  // App. E.1, not the judge's own
  }
  record_crit(debate_, context, panel, arguments, calls, out);
  co_return out;
}

}  // namespace parley
