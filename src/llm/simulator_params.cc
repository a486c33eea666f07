// Reading the simulator's parameter file. Every field is declared once in a table with its
// allowed range, so that the checks (missing, unknown, out of range) and the struct agree.
#include "llm/simulator_params.h"

#include <initializer_list>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "parley/simulator.h"

namespace parley {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class Struct>
struct NumberField {
  const char* name;
  double Struct::*member;
  double lowest;
  double highest;
};

const NumberField<SimulatorParams> kGlobalFields[] = {
    {"difficulty_alpha", &SimulatorParams::difficulty_alpha, 1e-3, kInf},
    {"difficulty_beta", &SimulatorParams::difficulty_beta, 1e-3, kInf},
    {"shared_difficulty_sd", &SimulatorParams::shared_difficulty_sd, 0.0, kInf},
    {"correctness_slope", &SimulatorParams::correctness_slope, 0.0, kInf},
    {"sample_noise_weight", &SimulatorParams::sample_noise_weight, 0.0, 1.0},
    {"attractor_probability", &SimulatorParams::attractor_probability, 0.0, 1.0},
    {"confidence_concentration", &SimulatorParams::confidence_concentration, 1e-3, kInf},
    {"confidence_difficulty_slope", &SimulatorParams::confidence_difficulty_slope, -1.0, 1.0},
    {"persuasion", &SimulatorParams::persuasion, 0.0, kInf},
    {"verify_slope", &SimulatorParams::verify_slope, -kInf, kInf},
    {"verify_bias", &SimulatorParams::verify_bias, -kInf, kInf},
    {"recognize_slope", &SimulatorParams::recognize_slope, -kInf, kInf},
    {"recognize_bias", &SimulatorParams::recognize_bias, -kInf, kInf},
    {"reflect_bias", &SimulatorParams::reflect_bias, -kInf, kInf},
    {"missing_peer_confidence", &SimulatorParams::missing_peer_confidence, 0.0, 1.0},
    {"agreement_pull", &SimulatorParams::agreement_pull, 0.0, 1.0},
    {"format_error_rate", &SimulatorParams::format_error_rate, 0.0, 1.0},
    {"hedge_base", &SimulatorParams::hedge_base, 0.0, 1.0},
    {"hedge_slope", &SimulatorParams::hedge_slope, 0.0, 1.0},
    {"contrast_rate", &SimulatorParams::contrast_rate, 0.0, 1.0},
    {"reasoning_tokens_base", &SimulatorParams::reasoning_tokens_base, 0.0, 100000.0},
    {"reasoning_tokens_difficulty", &SimulatorParams::reasoning_tokens_difficulty, 0.0, kInf},
    {"reasoning_tokens_min", &SimulatorParams::reasoning_tokens_min, 0.0, 100000.0},
    {"reasoning_tokens_max", &SimulatorParams::reasoning_tokens_max, 0.0, 100000.0},
    {"logprob_mean_base", &SimulatorParams::logprob_mean_base, 0.0, kInf},
    {"logprob_mean_slope", &SimulatorParams::logprob_mean_slope, 0.0, kInf},
    {"logprob_min_scale", &SimulatorParams::logprob_min_scale, 0.0, kInf},
    {"logprob_min_offset", &SimulatorParams::logprob_min_offset, 0.0, kInf},
    {"logprob_noise_sd", &SimulatorParams::logprob_noise_sd, 0.0, kInf},
    {"judge_slope", &SimulatorParams::judge_slope, -kInf, kInf},
    {"judge_bias", &SimulatorParams::judge_bias, -kInf, kInf},
    {"negative_dissent", &SimulatorParams::negative_dissent, 0.0, 1.0},
    {"adversary_confidence_mean", &SimulatorParams::adversary_confidence_mean, 0.01, 0.99},
    {"adversary_yield", &SimulatorParams::adversary_yield, 0.0, 1.0},
    {"critique_hesitation_width", &SimulatorParams::critique_hesitation_width, 1e-3, kInf},
    {"critique_hesitation_noise", &SimulatorParams::critique_hesitation_noise, 0.0, kInf},
    {"critique_confidence_base", &SimulatorParams::critique_confidence_base, 0.0, 1.0},
    {"critique_confidence_slope", &SimulatorParams::critique_confidence_slope, -1.0, 1.0},
    {"critique_switch", &SimulatorParams::critique_switch, 0.0, 1.0},
    {"critique_switch_wrong", &SimulatorParams::critique_switch_wrong, 0.0, 1.0},
    {"critique_alternative_gold", &SimulatorParams::critique_alternative_gold, 0.0, 1.0},
    {"critique_confidence_drop", &SimulatorParams::critique_confidence_drop, 0.0, 1.0},
};

const NumberField<SimulatorProfile> kProfileFields[] = {
    {"ability", &SimulatorProfile::ability, -kInf, kInf},
    {"confidence_correct_mean", &SimulatorProfile::confidence_correct_mean, 0.01, 0.99},
    {"confidence_wrong_mean", &SimulatorProfile::confidence_wrong_mean, 0.01, 0.99},
    {"self_trust", &SimulatorProfile::self_trust, 0.0, kInf},
    {"stubbornness", &SimulatorProfile::stubbornness, -kInf, kInf},
    {"verbosity", &SimulatorProfile::verbosity, 0.0, 100.0},
};

// Fills `out` from the object `json` (named `where`): every table field must be present and a
// number in range, and no other key may appear except those in `extra_keys`.
template <class Struct, std::size_t N>
std::optional<Error> read_fields(const nlohmann::json& json, const NumberField<Struct> (&fields)[N],
                                 std::initializer_list<std::string_view> extra_keys, std::string_view where,
                                 Struct& out) {
  for (const auto& [key, value] : json.items()) {
    bool known = false;
    for (const auto& f : fields) known = known || key == f.name;
    for (auto extra : extra_keys) known = known || key == extra;
    if (!known) return Error{fmt::format("{}{}: unknown field", where, key)};
  }
  for (const auto& f : fields) {
    const auto it = json.find(f.name);
    if (it == json.end()) return Error{fmt::format("{}{}: missing field", where, f.name)};
    if (!it->is_number()) return Error{fmt::format("{}{}: must be a number", where, f.name)};
    const double v = it->template get<double>();
    if (!(v >= f.lowest && v <= f.highest)) {
      return Error{fmt::format("{}{}: {} is outside [{}, {}]", where, f.name, v, f.lowest, f.highest)};
    }
    out.*f.member = v;
  }
  return std::nullopt;
}

}  // namespace

Result<std::shared_ptr<const SimulatorParams>> parse_simulator_params(std::string_view json_text,
                                                                      std::string_view source) {
  const auto json = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Error{fmt::format("{}: not valid JSON", source)};
  if (!json.is_object()) return Error{fmt::format("{}: top level must be an object", source)};

  auto params = std::make_shared<SimulatorParams>();
  const auto version = json.find("version");
  if (version == json.end()) return Error{fmt::format("{}: version: missing field", source)};
  if (!version->is_string() || version->get<std::string>() != kSimulatorParamsVersion) {
    return Error{fmt::format("{}: version: expected \"{}\"", source, kSimulatorParamsVersion)};
  }
  params->version = version->get<std::string>();

  const std::string where = fmt::format("{}: ", source);
  if (auto error = read_fields(json, kGlobalFields, {"version", "profiles"}, where, *params)) return *error;
  if (params->reasoning_tokens_min > params->reasoning_tokens_max) {
    return Error{fmt::format("{}reasoning_tokens_min: larger than reasoning_tokens_max", where)};
  }

  const auto profiles = json.find("profiles");
  if (profiles == json.end()) return Error{fmt::format("{}profiles: missing field", where)};
  if (!profiles->is_object() || profiles->empty()) {
    return Error{fmt::format("{}profiles: must be a non-empty object", where)};
  }
  for (const auto& [name, body] : profiles->items()) {
    const std::string profile_where = fmt::format("{}profiles.{}.", where, name);
    if (!body.is_object()) return Error{fmt::format("{}profiles.{}: must be an object", where, name)};
    SimulatorProfile profile;
    if (auto error = read_fields(body, kProfileFields, {}, profile_where, profile)) return *error;
    params->profiles.emplace(name, profile);
  }
  if (!params->profiles.count("default")) return Error{fmt::format("{}profiles.default: missing field", where)};
  return std::shared_ptr<const SimulatorParams>(std::move(params));
}

Result<std::shared_ptr<const SimulatorParams>> load_simulator_params(const std::filesystem::path& path) {
  const Result<std::string> text = read_input_file(path);
  if (!text) return Error{fmt::format("{}: simulator parameter file: {}", path.string(), text.error().message)};
  return parse_simulator_params(text.value(), path.string());
}

std::shared_ptr<const SimulatorParams> default_simulator_params() {
  // Parsed once; the embedded file is checked by the tests, so failing here is a build bug.
  static const std::shared_ptr<const SimulatorParams> params = [] {
    auto parsed = parse_simulator_params(embedded_simulator_params_json(), "built-in params-v1.json");
    return std::move(parsed).value();
  }();
  return params;
}

}  // namespace parley
