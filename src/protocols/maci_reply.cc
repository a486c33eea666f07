// MACI's agent replies: the outcome space and the structured reply (maci_reply.h).

#include "protocols/maci_reply.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "parley/answer.h"
#include "parley/labels.h"
#include "protocols/json_reply.h"

namespace parley::maci {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kOther = "other";

// The first of `names` that `object` has (json_member: any case, not null), or nullptr.
const Json* member(const Json& object, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (const Json* value = json_member(object, name)) return value;
  }
  return nullptr;
}

std::optional<std::string> text_of(const Json* value) {
  if (value == nullptr || !value->is_string()) return std::nullopt;
  std::string text = value->get<std::string>();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// An evidence id as cited: trimmed, without citation brackets ("[d1]" is d1), as corpus ids are.
std::string evidence_id(std::string_view written) {
  const auto trimmed = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  std::string_view id = trimmed(written);
  if (id.size() >= 2 && id.front() == '[' && id.back() == ']') id = trimmed(id.substr(1, id.size() - 2));
  return std::string(id);
}

Result<Argument> read_argument(const Json& entry, std::size_t position) {
  const std::string where = fmt::format("argument {}", position + 1);
  if (!entry.is_object()) return Error{where + " must be an object with \"claim\", \"justification\" and \"evidence\""};
  auto claim = text_of(member(entry, {"claim"}));
  if (!claim) return Error{where + " has no \"claim\" (a non-empty string)"};
  auto justification = text_of(member(entry, {"justification", "reasoning"}));
  if (!justification) return Error{where + " has no \"justification\" (a non-empty string)"};
  Argument argument{std::move(*claim), std::move(*justification), {}};
  if (const Json* evidence = member(entry, {"evidence", "evidence_ids"})) {
    if (!evidence->is_array()) return Error{where + ": \"evidence\" must be a list of evidence ids"};
    for (const Json& id : *evidence) {
      std::string text;
      if (id.is_string()) text = evidence_id(id.get<std::string>());
      else if (id.is_number_integer()) text = id.dump();
      else return Error{fmt::format("{}: evidence id {} is not a string or an integer", where, id.dump())};
      if (text.empty()) continue;
      if (std::find(argument.evidence.begin(), argument.evidence.end(), text) == argument.evidence.end())
        argument.evidence.push_back(std::move(text));
    }
  }
  return argument;
}

struct StatedProbability {
  std::string label;
  double value = 0.0;
  bool percent = false;  // written "60%"
};

Result<StatedProbability> stated(std::string label, const Json& value) {
  if (value.is_number()) return StatedProbability{std::move(label), value.get<double>(), false};
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    const bool percent = !text.empty() && text.back() == '%';
    if (percent) text.pop_back();
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '\0') return StatedProbability{std::move(label), parsed, percent};
  }
  return Error{fmt::format("the probability of \"{}\" is not a number: {}", label, value.dump())};
}

Result<std::vector<StatedProbability>> read_entries(const Json& distribution) {
  std::vector<StatedProbability> entries;
  if (distribution.is_object()) {
    for (auto it = distribution.begin(); it != distribution.end(); ++it) {
      auto entry = stated(it.key(), *it);
      if (!entry) return entry.error();
      entries.push_back(std::move(*entry));
    }
  } else if (distribution.is_array()) {
    for (const Json& item : distribution) {
      const auto label = item.is_object() ? text_of(member(item, {"label", "name", "diagnosis"})) : std::nullopt;
      const Json* probability = item.is_object() ? member(item, {"probability", "p", "prob"}) : nullptr;
      if (!label || probability == nullptr)
        return Error{"each entry of \"distribution\" must be {\"label\": <label>, \"probability\": <p>}"};
      auto entry = stated(*label, *probability);
      if (!entry) return entry.error();
      entries.push_back(std::move(*entry));
    }
  } else {
    return Error{"\"distribution\" must map each label to its probability"};
  }
  if (entries.empty()) return Error{"\"distribution\" is empty: give your top candidates with probabilities"};
  return entries;
}

// The belief the stated probabilities describe, by the rules of read_reply's comment.
Result<std::vector<double>> belief_from(const std::vector<StatedProbability>& entries, const OutcomeSpace& space) {
  // Plain numbers are percentages when any of them is above 1 ("Dengue": 60); then none may be a
  // fraction ("Dengue": 0.6, "Zika": 30 is a slip, not 0.6 %).
  const bool as_percent =
      std::any_of(entries.begin(), entries.end(), [](const auto& e) { return !e.percent && e.value > 1.0; });
  const auto fraction = std::find_if(entries.begin(), entries.end(), [](const auto& e) {
    return !e.percent && e.value > 0.0 && e.value < 1.0;
  });
  if (as_percent && fraction != entries.end()) {
    return Error{fmt::format("the distribution mixes fractions (\"{}\": {}) and percentages: use one", fraction->label,
                             fraction->value)};
  }
  std::vector<double> belief(space.size(), 0.0);
  double total = 0.0;
  for (const auto& entry : entries) {
    const double limit = as_percent || entry.percent ? 100.0 : 1.0;
    if (!std::isfinite(entry.value) || entry.value < 0.0 || entry.value > limit) {
      return Error{fmt::format("the probability of \"{}\" must be between 0 and 1 (or 0% and 100%), got {}",
                               entry.label, entry.value)};
    }
    const double probability = entry.value / (as_percent || entry.percent ? 100.0 : 1.0);
    belief[space.index_of(entry.label)] += probability;
    total += probability;
  }
  if (total <= 0.0) return Error{"the distribution gives no label any probability"};
  constexpr double kRounding = 0.01;  // "35% + 35% + 29%": a rounded list, not a top-k one
  if (total >= 1.0 - kRounding) {
    for (double& p : belief) p /= total;
  } else {
    belief[space.other()] += 1.0 - total;  // the mass a top-k list leaves unnamed (M-36)
  }
  return belief;
}

Result<std::vector<PlanItem>> read_plan(const Json* plan) {
  std::vector<PlanItem> items;
  if (plan == nullptr) return items;
  const auto add = [&items](const std::string& kind, const Json& list) -> Result<bool> {
    const auto add_one = [&](const Json& item) -> Result<bool> {
      auto text = text_of(&item);
      if (!text) return Error{fmt::format("acquisition_plan \"{}\" items must be strings", kind)};
      items.push_back({kind, std::move(*text)});
      return true;
    };
    if (!list.is_array()) return add_one(list);
    for (const Json& item : list) {
      if (auto added = add_one(item); !added) return added;
    }
    return true;
  };
  if (plan->is_object()) {
    for (auto it = plan->begin(); it != plan->end(); ++it) {
      if (auto added = add(it.key(), *it); !added) return added.error();
    }
  } else if (plan->is_array()) {
    if (auto added = add("items", *plan); !added) return added.error();
  } else {
    return Error{"\"acquisition_plan\" must map kinds (questions, tests, retrieval_queries, ...) to lists"};
  }
  return items;
}

Result<Reply> reply_from(const Json& object, const OutcomeSpace& space) {
  const Json* arguments = member(object, {"arguments"});
  if (arguments == nullptr || !arguments->is_array() || arguments->empty())
    return Error{"\"arguments\" must list at least one {\"claim\", \"justification\", \"evidence\"}"};
  Reply reply;
  for (std::size_t i = 0; i < arguments->size(); ++i) {
    auto argument = read_argument((*arguments)[i], i);
    if (!argument) return argument.error();
    reply.arguments.push_back(std::move(*argument));
  }
  const Json* distribution = member(object, {"distribution", "probabilities"});
  if (distribution == nullptr) return Error{"\"distribution\" is missing"};
  auto entries = read_entries(*distribution);
  if (!entries) return entries.error();
  auto belief = belief_from(*entries, space);
  if (!belief) return belief.error();
  reply.belief = std::move(*belief);
  auto plan = read_plan(member(object, {"acquisition_plan", "plan"}));
  if (!plan) return plan.error();
  reply.plan = std::move(*plan);
  return reply;
}

}  // namespace

Result<OutcomeSpace> OutcomeSpace::of(const Task& task) {
  OutcomeSpace space;
  if (task.answer_type == AnswerType::kChoice) {
    for (std::size_t i = 0; i < task.options.size(); ++i) space.names_.push_back(option_letter(i));
    space.options_ = task.options;
  } else if (task.answer_type == AnswerType::kLabel && task.labels) {
    if (task.labels->find(kOther)) {
      return Error{fmt::format("task '{}': the label set has a label '{}', which maci keeps for the mass outside the "
                               "set; rename it",
                               task.id, kOther)};
    }
    space.names_ = task.labels->labels();
    space.labels_ = task.labels;
  } else {
    return Error{fmt::format("task '{}' has no finite outcome space: maci needs a choice task or a label task "
                             "with dataset.labels",
                             task.id)};
  }
  space.names_.emplace_back(kOther);
  return space;
}

std::size_t OutcomeSpace::index_of(std::string_view label) const {
  if (label_key(label) == kOther) return other();
  const auto index = labels_ ? read_label_name(label, *labels_) : read_option_label(label, options_);
  return index.value_or(other());
}

Result<Reply> read_reply(std::string_view text, const OutcomeSpace& space) {
  return read_json_object<Reply>(text, [&space](const Json& object) { return reply_from(object, space); });
}

std::string reply_format() {
  return "Reply with one JSON object: {\"arguments\": [{\"claim\": \"<one claim>\", \"justification\": \"<why it "
         "holds>\", \"evidence\": [\"<id of an evidence document you cite>\", ...]}, ...], \"distribution\": "
         "{\"<label>\": <probability>, ...}, \"acquisition_plan\": {\"questions\": [...], \"tests\": [...], "
         "\"retrieval_queries\": [...]}}. The distribution lists your top candidates with probabilities that sum to "
         "at most 1; the acquisition plan is optional.";
}

}  // namespace parley::maci
