// Revision policies: exact action probabilities and their gradients, and policy files.
#include "llm/simulator_policy.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace parley::sim {
namespace {

constexpr std::array<const char*, kPolicyFeatures> kFeatureNames = {"support", "keep", "recognition", "plurality"};

// softmax_x(base_utility + θ·φ(x)), the choice of an agent that did not keep its answer outright.
std::vector<double> softmax_choice(const RevisionChoice& choice, const PolicyWeights& weights) {
  std::vector<double> utility(choice.options.size());
  for (std::size_t i = 0; i < utility.size(); ++i) {
    utility[i] = choice.options[i].base_utility;
    for (std::size_t f = 0; f < kPolicyFeatures; ++f) utility[i] += weights[f] * choice.options[i].features[f];
  }
  const double highest = *std::max_element(utility.begin(), utility.end());
  double total = 0.0;
  for (double& u : utility) total += (u = std::exp(u - highest));
  for (double& u : utility) u /= total;
  return utility;
}

}  // namespace

const char* policy_feature_name(std::size_t feature) { return kFeatureNames.at(feature); }

std::vector<double> choice_probabilities(const RevisionChoice& choice, const PolicyWeights& weights) {
  std::vector<double> probability = softmax_choice(choice, weights);
  for (double& p : probability) p *= 1.0 - choice.keep_probability;
  probability.front() += choice.keep_probability;  // eq. (7): the own answer, kept outright
  return probability;
}

// π(x) = k·1[x = 0] + (1 − k)·s(x) with s the softmax, so ∂π(x)/∂θ = (1 − k)·s(x)·(φ(x) − Σ_y s(y)φ(y)).
std::vector<PolicyWeights> choice_probability_gradients(const RevisionChoice& choice, const PolicyWeights& weights) {
  const std::vector<double> softmax = softmax_choice(choice, weights);
  PolicyWeights expected{};
  for (std::size_t i = 0; i < softmax.size(); ++i)
    for (std::size_t f = 0; f < kPolicyFeatures; ++f) expected[f] += softmax[i] * choice.options[i].features[f];
  std::vector<PolicyWeights> gradient(softmax.size());
  for (std::size_t i = 0; i < softmax.size(); ++i)
    for (std::size_t f = 0; f < kPolicyFeatures; ++f)
      gradient[i][f] = (1.0 - choice.keep_probability) * softmax[i] * (choice.options[i].features[f] - expected[f]);
  return gradient;
}

const PolicyWeights* RevisionPolicies::find(std::string_view agent) const {
  if (const auto it = weights_.find(agent); it != weights_.end()) return &it->second;
  const auto instance = agent.find('#');
  if (instance == std::string_view::npos) return nullptr;
  const auto base = weights_.find(agent.substr(0, instance));
  return base == weights_.end() ? nullptr : &base->second;
}

Result<RevisionPolicies> parse_revision_policies(std::string_view json) {
  // A key given twice in one object would otherwise be read as its last value, silently.
  std::vector<std::set<std::string>> keys_of_open_objects;
  std::string duplicate;
  const nlohmann::json::parser_callback_t refuse_duplicates = [&](int, nlohmann::json::parse_event_t event,
                                                                   nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys_of_open_objects.emplace_back();
    if (event == Event::object_end) keys_of_open_objects.pop_back();
    if (event == Event::key && !keys_of_open_objects.back().insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json, refuse_duplicates);
  } catch (const nlohmann::json::exception& error) {  // a syntax error, or a number overflow (1e400)
    return Error{fmt::format("not valid JSON: {}", error.what())};
  }
  if (!duplicate.empty()) return Error{fmt::format("the key \"{}\" is given twice in one object", duplicate)};
  if (!root.is_object()) return Error{"not a JSON object"};
  const auto format = root.find("format");
  if (format == root.end() || !format->is_string() || *format != kRevisionPolicyFormat)
    return Error{fmt::format("\"format\" must be \"{}\"", kRevisionPolicyFormat)};
  if (!root.contains("agents") || !root["agents"].is_object() || root["agents"].empty())
    return Error{"\"agents\" must be an object with one entry per agent"};
  RevisionPolicies policies;
  for (const auto& [agent, entry] : root["agents"].items()) {
    if (!entry.is_object()) return Error{fmt::format("agent '{}': expected an object of weights", agent)};
    PolicyWeights weights{};
    for (std::size_t f = 0; f < kPolicyFeatures; ++f) {
      const auto value = entry.find(kFeatureNames[f]);
      if (value == entry.end() || !value->is_number() || !(std::abs(value->get<double>()) <= kMaxPolicyWeight))
        return Error{fmt::format("agent '{}': \"{}\" must be a number between -{:g} and {:g}", agent,
                                 kFeatureNames[f], kMaxPolicyWeight, kMaxPolicyWeight)};
      weights[f] = value->get<double>();
    }
    for (const auto& [key, value] : entry.items()) {
      if (std::find_if(kFeatureNames.begin(), kFeatureNames.end(), [&key](const char* name) { return key == name; }) ==
          kFeatureNames.end())
        return Error{fmt::format("agent '{}': unknown weight \"{}\"", agent, key)};
    }
    policies.set(agent, weights);
  }
  return policies;
}

Result<RevisionPolicies> load_revision_policies(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot read the policy file", path)};
  std::ostringstream text;
  text << in.rdbuf();
  auto policies = parse_revision_policies(text.str());
  if (!policies) return Error{fmt::format("{}: {}", path, policies.error().message)};
  return policies;
}

}  // namespace parley::sim
