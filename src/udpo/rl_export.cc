// `parley export-rl`'s arithmetic: a run's debates grouped into batches, every UDPO quantity
// taken from parley/udpo.h (none computed here), and the JSON lines written. The choices are in
// docs/formats.md, "parley export-rl".
#include "parley/rl_export.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "parley/metrics.h"
#include "parley/stats.h"

namespace parley::udpo {
namespace {

using Json = nlohmann::ordered_json;

// One exported debate with what is computed from it once.
struct ExportedDebate {
  const Transcript* transcript = nullptr;
  AnswerTrajectory trajectory;
  TrajectoryRewards rewards;
  std::set<std::string> compromised;
};

// One agent turn: its first call and the re-asks that repeat it; the last is the turn's reply.
struct AgentTurn {
  std::vector<const MessageRecord*> calls;
  const MessageRecord& reply() const { return *calls.back(); }
};

Json optional_number(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }

Json optional_text(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

// The seats an `attack` event names (docs/formats.md).
std::set<std::string> compromised_seats(const Transcript& t) {
  std::set<std::string> out;
  for (const EventRecord& e : t.events) {
    if (e.kind != "attack") continue;
    const Json detail = Json::parse(e.detail, nullptr, false);
    if (!detail.is_object() || !detail.contains("compromised") || !detail["compromised"].is_array()) continue;
    for (const Json& name : detail["compromised"])
      if (name.is_string()) out.insert(name.get<std::string>());
  }
  return out;
}

// `agent`'s turns in issue order: its answer-bearing calls (is_agent_answer_role) but the best-of
// drafts the judges did not keep, a re-ask folded into the turn it repeats.
std::vector<AgentTurn> turns_of(const Transcript& t, const std::string& agent) {
  std::vector<AgentTurn> turns;
  std::map<int, std::size_t> turn_of_call;  // a turn's first call -> its index in `turns`
  for (const MessageRecord& m : t.messages) {
    if (m.agent != agent || !is_agent_answer_role(m.role) || m.role == "draft") continue;
    if (m.repeats) {
      const auto found = turn_of_call.find(*m.repeats);
      if (found != turn_of_call.end()) {
        turns[found->second].calls.push_back(&m);
        continue;
      }
    }
    turn_of_call[m.id] = turns.size();
    turns.push_back(AgentTurn{{&m}});
  }
  return turns;
}

Json messages_json(const std::vector<ChatMessage>& messages) {
  Json out = Json::array();
  for (const ChatMessage& m : messages) out.push_back(Json{{"role", m.role}, {"content", m.content.str()}});
  return out;
}

std::vector<ChatMessage> prompt_of(const Transcript& t, const MessageRecord& call) {
  auto prompt = rebuild_prompt(t, call.id);
  if (!prompt) {
    throw std::invalid_argument(fmt::format("debate ({}, {}, seed {}): {}", t.task_id, t.protocol, t.seed,
                                            prompt.error().message));
  }
  return std::move(*prompt);
}

// The coefficients an agent's reward in this debate is computed with: a reward term undefined for
// the debate (nullopt) has its coefficient set to 0, so that it contributes 0 (agent_reward's rule
// for a zero-weighted term) rather than making the reward undefined.
AgentCoefficients defined_terms(AgentCoefficients c, const TrajectoryRewards& r) {
  if (!r.intra) c.alpha = 0.0;
  if (!r.inter) c.beta = 0.0;
  if (!r.sys) c.gamma = 0.0;
  return c;
}

BaseCoefficients defined_terms(BaseCoefficients b, const TrajectoryRewards& r) {
  if (!r.intra) b.alpha = 0.0;
  if (!r.inter) b.beta = 0.0;
  if (!r.sys) b.gamma = 0.0;
  return b;
}

// Failure-vs-success Cohen's d of one uncertainty over the batch; success is r_task = 1, as the
// reference trainer's warm-up reads it.
std::optional<double> failure_effect(const std::vector<const ExportedDebate*>& batch,
                                     const std::vector<UncertaintyMetrics>& uncertainty,
                                     std::optional<double> UncertaintyMetrics::*u) {
  std::vector<double> failed, succeeded;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    if (!(uncertainty[k].*u)) continue;
    (batch[k]->rewards.task > 0.5 ? succeeded : failed).push_back(*(uncertainty[k].*u));
  }
  return cohens_d(failed, succeeded);
}

// Phase 1 of App. A.2 over the batch, for agents seated in any order: warmup_profile() of each
// debate alone, in that debate's own agent order (the vote's tie rule reads agents in it, as the
// run did), each agent's quantities then averaged by name over the debates that define them -
// which is warmup_profile() of the whole batch when every debate seats the agents in one order.
std::vector<AgentProfile> batch_profile(const std::vector<const ExportedDebate*>& batch,
                                        const std::vector<std::string>& agents, const ProfileOptions& options) {
  using Share = std::optional<double> AgentProfile::*;
  constexpr Share kShares[] = {&AgentProfile::u_intra, &AgentProfile::u_inter, &AgentProfile::loo_instability,
                               &AgentProfile::u_sys};
  constexpr std::size_t kCount = std::size(kShares);
  std::vector<std::array<double, kCount>> sums(agents.size(), std::array<double, kCount>{});
  std::vector<std::array<int, kCount>> counts(agents.size(), std::array<int, kCount>{});
  for (const ExportedDebate* debate : batch) {
    for (const AgentProfile& one : warmup_profile(std::span(&debate->trajectory, 1), options)) {
      const auto i = static_cast<std::size_t>(std::find(agents.begin(), agents.end(), one.agent) - agents.begin());
      for (std::size_t q = 0; q < kCount; ++q) {
        if (!(one.*kShares[q])) continue;
        sums[i][q] += *(one.*kShares[q]);
        ++counts[i][q];
      }
    }
  }
  std::vector<AgentProfile> profiles;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    AgentProfile& profile = profiles.emplace_back();
    profile.agent = agents[i];
    for (std::size_t q = 0; q < kCount; ++q)
      if (counts[i][q] > 0) profile.*kShares[q] = sums[i][q] / counts[i][q];
  }
  return profiles;
}

// Every line of one batch, appended to `out`.
void export_batch(const std::vector<const ExportedDebate*>& batch, const ExportOptions& options, ExportBatch& summary,
                  std::vector<std::string>& out) {
  // The batch's agents in the first debate's order; each debate's lines follow its own order.
  const std::vector<std::string>& agents = batch.front()->trajectory.agents();
  auto index_of = [&](const std::string& agent) {
    return static_cast<std::size_t>(std::find(agents.begin(), agents.end(), agent) - agents.begin());
  };
  const DebateMetricsOptions metrics{.u_intra_lambda = options.u_intra_lambda,
                                     .answer_type = answer_key(*batch.front()->transcript).answer_type};
  std::vector<UncertaintyMetrics> uncertainty;
  for (const ExportedDebate* d : batch) {
    DebateMetricsOptions own = metrics;
    own.answer_type = answer_key(*d->transcript).answer_type;
    uncertainty.push_back(uncertainty_metrics(d->trajectory, own));
  }

  // App. A.2 over the batch itself: the bases (U-8), the profile (phase 1), eqs. (10)–(14).
  CohensD d;
  if (options.bases == BaseRule::kCohensD) {
    d.u_intra = failure_effect(batch, uncertainty, &UncertaintyMetrics::u_intra);
    d.u_inter = failure_effect(batch, uncertainty, &UncertaintyMetrics::u_inter);
    d.u_sys = failure_effect(batch, uncertainty, &UncertaintyMetrics::u_sys);
  }
  const BaseCoefficients bases = base_coefficients(d, options.lambda_base, options.eta_base);
  const std::vector<AgentProfile> profiles =
      batch_profile(batch, agents, ProfileOptions{.metrics = metrics, .system = options.system_profile});
  std::vector<AgentCoefficients> coefficients;
  for (AgentProfile profile : profiles) {
    // A share undefined over the whole batch (one round has no flips) counts as 0, as in the
    // reference trainer's warm-up: the coefficient is its base.
    for (auto* u : {&profile.u_intra, &profile.u_inter, &profile.loo_instability, &profile.u_sys})
      if (!*u) *u = 0.0;
    coefficients.push_back(agent_coefficients(profile, bases, options.kappa));
  }

  // Eq. (4) per agent and debate; Algorithm 1 line 14 per agent over the batch; eq. (15) per debate.
  std::vector<std::vector<AgentReward>> rewards(agents.size());  // [agent, in `agents`][debate]
  std::vector<std::vector<double>> advantage(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i) {
    std::vector<double> totals;
    for (const ExportedDebate* debate : batch) {
      rewards[i].push_back(agent_reward(debate->rewards, defined_terms(coefficients[i], debate->rewards)));
      totals.push_back(rewards[i].back().total);
    }
    advantage[i] = advantages(totals);
  }
  std::vector<double> priority;
  for (const ExportedDebate* debate : batch)
    priority.push_back(replay_uncertainty(debate->rewards, defined_terms(bases, debate->rewards)));
  const std::vector<double> probability = replay_probabilities(priority, options.replay);
  const std::vector<double> weight = importance_weights(probability, options.replay.correction_exponent);

  summary.agents = agents;
  summary.debates = batch.size();
  summary.bases = bases;
  summary.coefficients = coefficients;

  for (std::size_t k = 0; k < batch.size(); ++k) {
    const ExportedDebate& debate = *batch[k];
    const Transcript& t = *debate.transcript;
    const TrajectoryRewards& r = debate.rewards;
    for (const std::string& agent : debate.trajectory.agents()) {
      const std::size_t i = index_of(agent);
      const AgentReward& reward = rewards[i][k];
      const AgentCoefficients& c = coefficients[i];
      // The fields every line of this (debate, agent) shares, after its own.
      Json shared;
      shared["rewards"] = Json{{"intra", optional_number(r.intra)},
                               {"inter", optional_number(r.inter)},
                               {"sys", optional_number(r.sys)},
                               {"task", r.task}};
      shared["reward"] = reward.total;
      shared["reward_components"] = Json{
          {"intra", r.intra ? Json(reward.intra) : Json(nullptr)},
          {"inter", r.inter ? Json(reward.inter) : Json(nullptr)},
          {"sys", r.sys ? Json(reward.sys) : Json(nullptr)},
          {"task", reward.task}};
      shared["coefficients"] =
          Json{{"alpha", c.alpha}, {"beta", c.beta}, {"gamma", c.gamma}, {"lambda", c.lambda}, {"eta", c.eta}};
      shared["advantage"] = advantage[i][k];
      shared["replay"] =
          Json{{"uncertainty", priority[k]}, {"probability", probability[k]}, {"importance_weight", weight[k]}};

      Json head{{"task_id", t.task_id},
                {"protocol", t.protocol},
                {"seed", t.seed},
                {"agent", agent},
                {"compromised", debate.compromised.count(agent) > 0}};
      const std::vector<AgentTurn> turns = turns_of(t, agent);
      if (turns.empty()) continue;  // not reached: a trajectory's agent has an answer-bearing turn
      if (options.unit == ExportUnit::kTurn) {
        for (const AgentTurn& turn : turns) {
          const MessageRecord& call = turn.reply();
          Json line = head;
          line["call"] = call.id;
          line["round"] = call.round;
          line["role"] = turn.calls.front()->role;
          line["answer"] = optional_text(call.answer);
          line["confidence"] = optional_number(call.confidence);
          line["prompt"] = messages_json(prompt_of(t, call));
          line["completion"] = Json::array({Json{{"role", "assistant"}, {"content", call.text}}});
          line.update(shared);
          out.push_back(line.dump(-1, ' ', false, Json::error_handler_t::replace));
        }
        continue;
      }
      Json line = head;
      line["gold"] = t.gold;
      line["final_vote"] = optional_text(r.final_vote);
      std::vector<ChatMessage> conversation = prompt_of(t, turns.back().reply());
      conversation.push_back(ChatMessage{"assistant", turns.back().reply().text});
      line["messages"] = messages_json(conversation);
      Json turn_list = Json::array();
      for (const AgentTurn& turn : turns) {
        const MessageRecord& call = turn.reply();
        std::int64_t prompt_tokens = 0, completion_tokens = 0;
        for (const MessageRecord* part : turn.calls) {
          prompt_tokens += part->prompt_tokens;
          completion_tokens += part->completion_tokens;
        }
        turn_list.push_back(Json{{"call", call.id},
                                 {"round", call.round},
                                 {"role", turn.calls.front()->role},
                                 {"completion", call.text},
                                 {"answer", optional_text(call.answer)},
                                 {"confidence", optional_number(call.confidence)},
                                 {"calls", turn.calls.size()},
                                 {"prompt_tokens", prompt_tokens},
                                 {"completion_tokens", completion_tokens}});
      }
      line["turns"] = std::move(turn_list);
      line.update(shared);
      out.push_back(line.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
  }
}

Result<RlExport> export_checked(std::span<const Transcript> transcripts, const ExportOptions& options) {
  if (transcripts.empty()) return Error{"the run has no debates"};
  std::vector<std::string> protocols;
  for (const Transcript& t : transcripts)
    if (std::find(protocols.begin(), protocols.end(), t.protocol) == protocols.end()) protocols.push_back(t.protocol);
  if (!options.protocol.empty() &&
      std::find(protocols.begin(), protocols.end(), options.protocol) == protocols.end()) {
    return Error{fmt::format("no protocol \"{}\" in the run (it has: {})", options.protocol, fmt::join(protocols, ", "))};
  }
  std::vector<const Transcript*> chosen;
  for (const Transcript& t : transcripts)
    if (options.protocol.empty() || t.protocol == options.protocol) chosen.push_back(&t);

  // Every debate must have its prompts (and its answer type, stored with them), or none is exported.
  // A debate with none of them was stored by an older parley; one with part of them is damaged.
  auto stored_before_prompts = [](const Transcript& t) {
    return std::none_of(t.messages.begin(), t.messages.end(), [](const MessageRecord& m) { return m.prompt.has_value(); });
  };
  const auto without = std::count_if(chosen.begin(), chosen.end(),
                                     [&](const Transcript* t) { return stored_before_prompts(*t); });
  if (without > 0) {
    return Error{fmt::format("{} of the {} debates to export were stored without the prompts their agents were sent "
                             "(by a parley older than the prompt record); run the experiment again with this parley",
                             without, chosen.size())};
  }
  for (const Transcript* t : chosen) {
    std::string damage;
    if (!t->answer_type) damage = "it has prompts but no answer_type";
    for (const MessageRecord& m : t->messages) {
      if (!damage.empty()) break;
      if (m.role == "embedding") continue;
      if (auto prompt = rebuild_prompt(*t, m.id); !prompt) damage = prompt.error().message;
    }
    if (!damage.empty())
      return Error{fmt::format("debate ({}, {}, seed {}): {}", t->task_id, t->protocol, t->seed, damage)};
  }

  RlExport result;
  std::vector<ExportedDebate> debates;
  debates.reserve(chosen.size());
  for (const Transcript* t : chosen) {
    if (t->status != DebateStatus::kCompleted) {
      ++result.skipped[debate_status_name(t->status)];
      continue;
    }
    AnswerTrajectory trajectory = answer_trajectory(*t);
    if (trajectory.agent_count() == 0) {
      ++result.skipped["no agent turns"];
      continue;
    }
    const Task task = answer_key(*t);
    const UncertaintyMetrics u = uncertainty_metrics(
        trajectory, DebateMetricsOptions{.u_intra_lambda = options.u_intra_lambda, .answer_type = task.answer_type});
    TrajectoryRewards rewards = trajectory_rewards(u, task, options.intra_reward);
    // ŷ(τ) is the debate's own outcome as the run scored it: the final round's majority vote for
    // `debate` (the paper's ŷ), the judge's verdict for a judged protocol, the samples' vote for
    // self_consistency — whose samples are one agent's turns, so the trajectory's last-round
    // answer would be its last sample, not the vote.
    rewards.final_vote = t->final_answer;
    rewards.task = t->correct ? 1.0 : 0.0;
    debates.push_back(ExportedDebate{t, std::move(trajectory), std::move(rewards), compromised_seats(*t)});
  }
  if (debates.empty()) return Error{fmt::format("none of the {} debates to export completed", chosen.size())};

  // Batches: per protocol, the debates seating the same agents (in whatever order: a protocol may
  // draw its speaking order per debate), in run order.
  auto seated = [](const ExportedDebate& d) {
    std::vector<std::string> names = d.trajectory.agents();
    std::sort(names.begin(), names.end());
    return names;
  };
  std::vector<std::vector<const ExportedDebate*>> batches;
  for (const ExportedDebate& d : debates) {
    auto same = std::find_if(batches.begin(), batches.end(), [&](const auto& b) {
      return b.front()->transcript->protocol == d.transcript->protocol && seated(*b.front()) == seated(d);
    });
    if (same == batches.end()) {
      batches.push_back({&d});
    } else {
      same->push_back(&d);
    }
  }
  for (const auto& batch : batches) {
    ExportBatch& summary = result.batches.emplace_back();
    summary.protocol = batch.front()->transcript->protocol;
    export_batch(batch, options, summary, result.lines);
  }
  result.debates = debates.size();
  return result;
}

}  // namespace

Result<RlExport> export_rl(std::span<const Transcript> transcripts, const ExportOptions& options) {
  // The udpo functions refuse what they cannot compute (κ < 0, ε_p < 0, every priority 0, ...)
  // by std::invalid_argument with the reason; here that is the export's error.
  try {
    return export_checked(transcripts, options);
  } catch (const std::invalid_argument& e) {
    return Error{e.what()};
  }
}

}  // namespace parley::udpo
