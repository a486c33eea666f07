// load_experiment: YAML → ExperimentConfig, with every key checked (docs/formats.md).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/yaml_reader.h"
#include "core/files.h"
#include "core/hash.h"
#include "parley/config.h"

namespace parley {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The URL as it may be shown: a password in its user part is replaced ("http://user:***@host").
std::string redacted_url(const std::string& url) {
  const std::size_t scheme_end = url.find("://");
  const std::size_t authority = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  // The authority ends at the path (or query, fragment); its userinfo at the last '@' in it, as a
  // password may hold an unencoded '@'.
  const std::size_t path = url.find_first_of("/?#", authority);
  const std::size_t at = url.rfind('@', path == std::string::npos ? std::string::npos : path);
  if (at == std::string::npos || at < authority) return url;
  const std::size_t colon = url.find(':', authority);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

// "" when `url` is an http(s) URL with a host and, if given, a port in 1..65535; otherwise the
// problem in words (the URL shown without its password).
std::string base_url_problem(const std::string& url) {
  const std::string shown = redacted_url(url);
  std::size_t authority = 0;
  if (url.rfind("http://", 0) == 0) authority = 7;
  else if (url.rfind("https://", 0) == 0) authority = 8;
  else return fmt::format("expected an http:// or https:// URL, got '{}'", shown);
  std::string host = url.substr(authority, url.find_first_of("/?#", authority) - authority);
  if (const std::size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  std::string port;
  if (const std::size_t colon = host.rfind(':'); colon != std::string::npos && host.find(']', colon) == std::string::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) return fmt::format("'{}' has no host", shown);
  const bool bracketed = host.front() == '[';  // an IPv6 address, perhaps with a zone: [::1], [fe80::1%25eth0]
  const auto is_ipv6_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == '%'; };
  if (bracketed ? host.size() < 3 || host.back() != ']' || host.find(':') == std::string::npos ||
                      !std::all_of(host.begin() + 1, host.end() - 1, is_ipv6_char)
                : host.find_first_of(":[]") != std::string::npos) {
    return fmt::format("'{}' has host '{}': not a host name, an IPv4 address or a bracketed IPv6 address", shown, host);
  }
  if (url.find_first_of(" \t\r\n") != std::string::npos) return fmt::format("'{}' contains white space", shown);
  if (!port.empty()) {
    const bool digits = port.size() <= 5 && std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    const int number = digits ? std::stoi(port) : 0;
    if (number < 1 || number > 65535)
      return fmt::format("'{}' has port '{}'; a port is a number from 1 to 65535", shown, port);
  }
  return {};
}

std::filesystem::path resolve_data_path(const std::filesystem::path& experiment, const std::string& raw);

ModelConfig read_model(const YamlReader& r, const std::filesystem::path& experiment) {
  ModelConfig m;
  m.name = r.text("name");
  const std::string backend = r.text("backend");
  if (backend == "simulator") {
    m.backend = Backend::kSimulator;
    r.only_keys({"name", "backend", "profile", "params", "delay_ms", "lean", "policy"}, "for backend simulator");
    m.simulator_profile = r.optional_text("profile").value_or("default");
    m.simulator_params = r.optional_text("params").value_or("");
    m.simulator_delay_ms = r.optional_number("delay_ms", 0, 600000).value_or(0);
    m.simulator_lean = r.optional_number("lean", -1, 1).value_or(0);
    if (auto policy = r.optional_text("policy")) {
      m.simulator_policy = resolve_data_path(experiment, *policy);
      if (!std::filesystem::exists(m.simulator_policy)) r.fail("policy", fmt::format("file not found: {}", *policy));
    }
  } else if (backend == "openai") {
    m.backend = Backend::kOpenAi;
    r.only_keys({"name", "backend", "base_url", "model", "api_key_env", "max_concurrency", "timeout_s",
                 "connect_timeout_s", "max_reply_mb", "max_retries", "retry_base_delay_s", "retry_max_delay_s"},
                "for backend openai");
    auto& e = m.endpoint;
    e.base_url = r.text("base_url");
    if (const std::string problem = base_url_problem(e.base_url); !problem.empty()) r.fail("base_url", problem);
    e.model = r.text("model");
    e.api_key_env = r.optional_text("api_key_env").value_or("");
    e.max_concurrency = static_cast<int>(r.optional_integer("max_concurrency", 1, 100000).value_or(64));
    e.timeout_s = r.optional_number("timeout_s", 0.001, 86400).value_or(60);
    e.connect_timeout_s = r.optional_number("connect_timeout_s", 0.001, 3600).value_or(10);
    e.max_reply_bytes = static_cast<std::size_t>(r.optional_integer("max_reply_mb", 1, 4096).value_or(64)) << 20;
    e.retry.max_retries = static_cast<int>(r.optional_integer("max_retries", 0, 100).value_or(4));
    e.retry.base_delay_s = r.optional_number("retry_base_delay_s", 0, 3600).value_or(0.5);
    e.retry.max_delay_s = r.optional_number("retry_max_delay_s", 0, 3600).value_or(30);
  } else {
    r.fail("backend", fmt::format("unknown backend '{}' (known: simulator, openai)", backend));
  }
  return m;
}

AgentConfig read_agent(const YamlReader& r, const std::set<std::string>& models) {
  r.only_keys({"name", "model", "temperature", "top_p", "max_tokens", "system_prompt", "logprobs"});
  AgentConfig a;
  a.name = r.text("name");
  a.model = r.text("model");
  if (models.count(a.model) == 0) r.fail("model", fmt::format("no model named '{}' is defined under models", a.model));
  a.sampling.temperature = r.optional_number("temperature", 0, 2).value_or(0.7);
  a.sampling.top_p = r.optional_number("top_p", 0, 1).value_or(1.0);
  a.sampling.max_tokens = static_cast<int>(r.optional_integer("max_tokens", 1, 1000000).value_or(1024));
  a.sampling.logprobs = r.optional_flag("logprobs").value_or(false);
  a.system_prompt = r.optional_text("system_prompt").value_or("");
  return a;
}

ParamValue read_param_value(const YamlReader& r, const ParamSpec& spec, const std::filesystem::path& experiment) {
  const double lo = spec.min.value_or(-1e18);
  const double hi = spec.max.value_or(1e18);
  switch (spec.kind) {
    case ParamKind::kBool:
      return *r.optional_flag(spec.name);
    case ParamKind::kInt:
      return *r.optional_integer(spec.name, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    case ParamKind::kDouble:
      return *r.optional_number(spec.name, lo, hi);
    case ParamKind::kString:
      return *r.optional_text(spec.name);
    case ParamKind::kPath: {
      const std::string given = *r.optional_text(spec.name);
      const std::filesystem::path resolved = resolve_data_path(experiment, given);
      if (!std::filesystem::is_regular_file(resolved)) r.fail(spec.name, fmt::format("file not found: {}", given));
      return resolved.string();
    }
  }
  r.fail(spec.name, "unsupported parameter kind");
}

// The `judge:` block of a protocol entry (parley/judge.h).
JudgeSettings read_judging(const YamlReader& r) {
  r.only_keys({"reasks", "masking", "scale", "aggregation"}, "for judge");
  JudgeSettings s;
  s.reasks = static_cast<int>(r.optional_integer("reasks", 0, 10).value_or(s.reasks));
  s.mask_identities = r.optional_flag("masking").value_or(s.mask_identities);
  const std::string scale = r.optional_text("scale").value_or(judge_scale_name(s.scale));
  if (scale == "likert") s.scale = JudgeScale::kLikert;
  else if (scale == "rubric") s.scale = JudgeScale::kRubric;
  else r.fail("scale", fmt::format("unknown judge scale '{}' (known: likert, rubric)", scale));
  const std::string aggregation = r.optional_text("aggregation").value_or(judge_aggregation_name(s.aggregation));
  if (aggregation == "mean") s.aggregation = JudgeAggregation::kMean;
  else if (aggregation == "median") s.aggregation = JudgeAggregation::kMedian;
  else r.fail("aggregation", fmt::format("unknown judge aggregation '{}' (known: mean, median)", aggregation));
  return s;
}

// The value with the protocol's own check (e.g. a prompt template's placeholders).
ParamValue read_param(const YamlReader& r, const ParamSpec& spec, const std::filesystem::path& experiment) {
  ParamValue value = read_param_value(r, spec, experiment);
  if (spec.check) {
    if (const std::string problem = spec.check(value); !problem.empty()) r.fail(spec.name, problem);
  }
  return value;
}

// `compromised:` (UDPO §3.1, Table 3): the names of pool agents, or m, the last m debaters seated;
// `attack_instruction:` replaces parley's adversarial instruction. `agents` is the experiment's
// agent list in order: without an `agents:` list it is the protocol's pool, seated in that order.
AttackSetup read_attack(const YamlReader& r, const ProtocolConfig& p, const std::vector<std::string>& agents,
                        const ProtocolInfo& info) {
  AttackSetup attack;
  const std::vector<std::string>& pool = p.agents.empty() ? agents : p.agents;
  const std::size_t debaters = protocol_debaters(info, p.params);
  if (r.has("compromised") && r.node("compromised").IsSequence()) {
    attack.agents = r.text_list("compromised");
    if (attack.agents.empty()) r.fail("compromised", "expected agent names or a number of agents");
    for (const auto& name : attack.agents) {
      const auto seat = std::find(pool.begin(), pool.end(), name);
      if (seat == pool.end())
        r.fail("compromised", fmt::format("'{}' is not one of this protocol's agents", name));
      if (std::count(attack.agents.begin(), attack.agents.end(), name) > 1)
        r.fail("compromised", fmt::format("'{}' is listed twice", name));
      // Debate::agents seats the pool in order: an agent past the debaters would never debate.
      if (static_cast<std::size_t>(seat - pool.begin()) >= debaters)
        r.fail("compromised", fmt::format("'{}' is never seated: {} seats {} debater(s), the first of {}", name,
                                          p.name, debaters, fmt::join(pool, ", ")));
    }
  } else if (r.has("compromised")) {
    attack.count = static_cast<int>(*r.optional_integer("compromised", 0, 1000));  // 0: no attack (sweeps)
    if (static_cast<std::size_t>(attack.count) > debaters)
      r.fail("compromised", fmt::format("{} compromised of {} debater(s) that {} seats", attack.count, debaters, p.name));
  }
  if (r.has("attack_instruction")) {
    if (!r.has("compromised")) r.fail("attack_instruction", "needs 'compromised' in the same protocol entry");
    attack.instruction = r.text("attack_instruction");
    if (attack.instruction.empty()) r.fail("attack_instruction", "expected a non-empty instruction");
  }
  return attack;
}

// The keys an entry names its protocol and its label by: `name`/`label` under `protocols:`,
// `protocol`/`model` under `serve.models:`.
struct EntryKeys {
  const char* protocol = "name";
  const char* label = "label";
};

ProtocolConfig read_protocol(const YamlReader& r, const std::vector<std::string>& agents,
                             const std::set<std::string>& models, const std::filesystem::path& experiment,
                             EntryKeys keys_of_entry = {}) {
  ProtocolConfig p;
  p.name = r.text(keys_of_entry.protocol);
  const ProtocolInfo* info = find_protocol(p.name);
  if (info == nullptr) {
    std::string known;
    for (const auto& entry : protocol_registry()) known += (known.empty() ? "" : ", ") + entry.name;
    r.fail(keys_of_entry.protocol, fmt::format("unknown protocol '{}' (known: {})", p.name, known));
  }
  std::set<std::string> keys = {keys_of_entry.protocol, keys_of_entry.label,    "agents",         "judges",
                                "judge",        "best_of",      "best_of_jitter", "compromised",
                                "attack_instruction"};
  if (info->uses_embeddings) keys.insert("embeddings");
  for (const auto& spec : info->params) keys.insert(spec.name);
  r.only_keys(keys, "for protocol " + p.name);
  p.label = r.optional_text(keys_of_entry.label).value_or(p.name);
  // `agents:` is either a list of agent names (which agents take part) or, for protocols
  // with an `agents` parameter, a count drawn from the experiment's agent list.
  const bool agent_list = r.has("agents") && r.node("agents").IsSequence();
  if (agent_list) p.agents = r.text_list("agents");
  for (const auto& a : p.agents) {
    if (!contains(agents, a)) r.fail("agents", fmt::format("no agent named '{}' is defined under agents", a));
  }
  if (r.has("judges")) {
    p.judges = r.text_list("judges");
    if (p.judges.empty()) r.fail("judges", "expected a non-empty list of agent names");
    for (const auto& j : p.judges) {
      if (!contains(agents, j)) r.fail("judges", fmt::format("no agent named '{}' is defined under agents", j));
    }
  }
  if (r.has("judge")) p.judging = read_judging(r.map("judge"));
  if (r.has("embeddings")) {
    p.embedding_model = r.text("embeddings");
    if (models.count(p.embedding_model) == 0)
      r.fail("embeddings", fmt::format("no model named '{}' is defined under models", p.embedding_model));
  }
  p.best_of = static_cast<int>(r.optional_integer("best_of", 1, 16).value_or(info->default_best_of));
  p.best_of_jitter = r.optional_number("best_of_jitter", 0, 1).value_or(kPaperBestOfJitter);
  for (const auto& spec : info->params) {
    if (spec.name == "agents" && agent_list) {
      const auto count = static_cast<std::int64_t>(p.agents.size());
      if ((spec.min && count < *spec.min) || (spec.max && count > *spec.max))
        r.fail("agents", fmt::format("{} agents listed; protocol {} takes {} to {}", count, p.name,
                                     spec.min.value_or(1), spec.max.value_or(1e9)));
      p.params.set(spec.name, ParamValue(count));
      continue;
    }
    if (spec.required && !r.has(spec.name))
      r.fail(spec.name, fmt::format("protocol {} needs '{}': {}", p.name, spec.name, spec.help));
    p.params.set(spec.name, r.has(spec.name) ? read_param(r, spec, experiment) : spec.default_value);
  }
  const bool counts_agents = std::any_of(info->params.begin(), info->params.end(),
                                         [](const ParamSpec& spec) { return spec.name == "agents"; });
  if (!agent_list && r.has("agents") && !counts_agents)
    r.fail("agents", "expected a list of agent names");
  if (info->check_params) {
    if (const auto [key, problem] = info->check_params(p.params); !problem.empty()) r.fail(key, problem);
  }
  p.attack = read_attack(r, p, agents, *info);
  return p;
}

// One of `names`, or a config error naming them.
std::string read_choice(const YamlReader& r, const std::string& key, const std::string& fallback,
                        const std::vector<std::string>& names) {
  std::string value = r.optional_text(key).value_or(fallback);
  if (std::find(names.begin(), names.end(), value) == names.end())
    r.fail(key, fmt::format("'{}' is not one of {}", value, fmt::join(names, ", ")));
  return value;
}

TrainingConfig read_training(const YamlReader& r, const std::vector<std::string>& agents,
                             const std::filesystem::path& experiment) {
  r.only_keys({"method", "ablation", "intra_reward", "bases", "agents", "rounds", "compromised", "iterations",
               "batch", "epochs", "learning_rate", "clip", "kappa", "warmup_share", "replay_buffer", "replay_draws",
               "replay_exponent", "replay_correction_start", "replay_correction", "checkpoint_every", "seed",
               "dataset", "limit"});
  TrainingConfig t;
  t.method = read_choice(r, "method", t.method, {"udpo", "mappo"});
  t.ablation = read_choice(r, "ablation", t.ablation, {"none", "intra", "inter", "sys"});
  t.intra_reward = read_choice(r, "intra_reward", t.intra_reward, {"one_minus_flip_rate", "all_transitions", "literal"});
  t.bases = read_choice(r, "bases", t.bases, {"cohens_d", "equal"});
  if (r.has("agents")) {
    t.agents = r.text_list("agents");
    for (const auto& a : t.agents)
      if (!contains(agents, a)) r.fail("agents", fmt::format("no agent named '{}' is defined under agents", a));
  }
  const auto count = t.agents.empty() ? agents.size() : t.agents.size();
  if (count < 2) r.fail("agents", "training needs at least two debaters");
  const auto integer = [&r](const char* key, int& target, std::int64_t min, std::int64_t max) {
    if (auto v = r.optional_integer(key, min, max)) target = static_cast<int>(*v);
  };
  integer("rounds", t.rounds, 1, 50);
  integer("compromised", t.compromised, 0, static_cast<std::int64_t>(count) - 1);
  integer("iterations", t.iterations, 1, 1000000);
  integer("batch", t.batch, 1, 100000);
  integer("epochs", t.epochs, 1, 1000);
  integer("replay_buffer", t.replay_buffer, 1, 10000000);
  integer("replay_draws", t.replay_draws, 0, 100000);
  integer("checkpoint_every", t.checkpoint_every, 1, 1000000);
  const auto number = [&r](const char* key, double& target, double min, double max) {
    if (auto v = r.optional_number(key, min, max)) target = *v;
  };
  number("learning_rate", t.learning_rate, 1e-9, 10);
  number("clip", t.clip, 1e-6, 10);
  number("kappa", t.kappa, 0, 100);
  number("warmup_share", t.warmup_share, 0, 0.9);
  number("replay_exponent", t.replay_exponent, 0, 100);
  number("replay_correction_start", t.replay_correction_start, 0, 1);
  number("replay_correction", t.replay_correction, 0, 1);
  if (auto seed = r.optional_integer("seed", 0, INT64_MAX)) t.seed = static_cast<std::uint64_t>(*seed);
  if (auto given = r.optional_text("dataset")) {
    t.dataset = resolve_data_path(experiment, *given);
    if (!std::filesystem::exists(t.dataset)) r.fail("dataset", fmt::format("file not found: {}", *given));
  }
  if (auto limit = r.optional_integer("limit", 1, 100000000)) t.limit = static_cast<std::size_t>(*limit);
  return t;
}

std::filesystem::path resolve_data_path(const std::filesystem::path& experiment, const std::string& raw) {
  const std::filesystem::path given(raw);
  if (given.is_absolute() || std::filesystem::exists(given)) return given;
  // Relative paths are tried from the working directory first, then beside the experiment file.
  const auto beside = experiment.parent_path() / given;
  return std::filesystem::exists(beside) ? beside : given;
}

// What a run reads: `dataset:` and `protocols:`.
void read_runs(ExperimentConfig& c, const YamlReader& top, const std::vector<std::string>& agent_names,
               const std::set<std::string>& model_names, const std::filesystem::path& path) {
  const YamlReader data = top.map("dataset");
  data.only_keys({"path", "format", "limit", "labels", "evidence"});
  c.dataset.path = resolve_data_path(path, data.text("path"));
  if (!std::filesystem::exists(c.dataset.path)) {
    data.fail("path", fmt::format("file not found: {}", data.text("path")));
  }
  const std::string format = data.optional_text("format").value_or("auto");
  const auto parsed_format = parse_dataset_format(format);
  if (!parsed_format) data.fail("format", fmt::format("unknown format '{}' (known: auto, jsonl, gsm8k, mmlu_csv)", format));
  c.dataset.format = *parsed_format;
  if (auto limit = data.optional_integer("limit", 1, 100000000)) c.dataset.limit = static_cast<std::size_t>(*limit);
  for (auto [key, target] : {std::pair{"labels", &c.dataset.labels}, {"evidence", &c.dataset.evidence}}) {
    if (auto given = data.optional_text(key)) {
      *target = resolve_data_path(path, *given);
      if (!std::filesystem::exists(*target)) data.fail(key, fmt::format("file not found: {}", *given));
    }
  }

  std::set<std::string> labels;
  for (const auto& r : top.list("protocols")) {
    c.protocols.push_back(read_protocol(r, agent_names, model_names, path));
    if (!labels.insert(c.protocols.back().label).second) {
      r.fail("label", fmt::format("protocol label '{}' is used twice; give one a distinct label", c.protocols.back().label));
    }
  }

}

ServeConfig read_serve(const YamlReader& r, const std::vector<std::string>& agents,
                       const std::set<std::string>& models, const std::filesystem::path& experiment) {
  r.only_keys({"models", "store", "host", "port", "api_key_env", "max_debates", "max_waiting", "retry_after_s",
               "max_request_bytes", "max_connections", "budget_tokens", "deadline_s"},
              "under serve");
  ServeConfig serve;
  std::set<std::string> served;
  for (const auto& entry : r.list("models")) {
    serve.models.push_back(read_protocol(entry, agents, models, experiment, {"protocol", "model"}));
    const std::string& name = serve.models.back().label;
    if (name.empty()) entry.fail("model", "expected a non-empty model name");
    if (!served.insert(name).second) {
      entry.fail("model", fmt::format("model '{}' is served twice; give one a distinct model name", name));
    }
  }
  if (auto store = r.optional_text("store")) {
    if (store->empty()) r.fail("store", "expected a directory");
    serve.store = *store;
  }
  if (auto host = r.optional_text("host")) serve.host = *host;
  serve.port = static_cast<int>(r.optional_integer("port", 0, 65535).value_or(serve.port));
  serve.api_key_env = r.optional_text("api_key_env").value_or("");
  serve.max_debates = static_cast<int>(r.optional_integer("max_debates", 1, 1000000).value_or(serve.max_debates));
  serve.max_waiting = static_cast<int>(r.optional_integer("max_waiting", 0, 10000000).value_or(serve.max_waiting));
  serve.retry_after_s = r.optional_number("retry_after_s", 0, 3600).value_or(serve.retry_after_s);
  serve.max_request_bytes = r.optional_integer("max_request_bytes", 1024, std::int64_t{1} << 30)
                                .value_or(serve.max_request_bytes);
  serve.max_connections =
      static_cast<int>(r.optional_integer("max_connections", 1, 1000000).value_or(serve.max_connections));
  serve.budget_tokens = r.optional_integer("budget_tokens", 100, INT64_MAX);
  serve.deadline_s = r.optional_number("deadline_s", 0.001, 86400.0 * 7).value_or(serve.deadline_s);
  return serve;
}

ExperimentConfig read_experiment(const std::filesystem::path& path, const YAML::Node& root) {
  const YamlReader top(path.string(), root, "");
  if (!root.IsMap()) top.fail_here("expected a mapping of experiment keys");
  top.only_keys({"name", "description", "models", "agents", "dataset", "protocols", "seeds", "concurrency",
                 "budget_tokens_per_task", "reask_unparsed", "metrics", "training", "serve"});
  ExperimentConfig c;
  c.source = path;
  c.name = top.optional_text("name").value_or(path.stem().string());

  std::set<std::string> model_names;
  for (const auto& r : top.list("models")) {
    c.models.push_back(read_model(r, path));
    if (!model_names.insert(c.models.back().name).second) r.fail("name", "duplicate model name '" + c.models.back().name + "'");
  }
  std::vector<std::string> agent_names;  // in the file's order, the order a pool seats them
  for (const auto& r : top.list("agents")) {
    c.agents.push_back(read_agent(r, model_names));
    if (contains(agent_names, c.agents.back().name)) r.fail("name", "duplicate agent name '" + c.agents.back().name + "'");
    agent_names.push_back(c.agents.back().name);
  }

  if (top.has("serve")) c.serve = read_serve(top.map("serve"), agent_names, model_names, path);
  // A serve file needs neither a dataset nor protocols; an experiment file both.
  if (!c.serve || top.has("dataset") || top.has("protocols")) read_runs(c, top, agent_names, model_names, path);

  if (top.has("seeds")) {
    const YAML::Node seeds = root["seeds"];
    if (!seeds.IsSequence() || seeds.size() == 0) top.fail("seeds", "expected a non-empty list of integers");
    c.seeds.clear();
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      YAML::Node holder;
      holder["seed"] = seeds[i];
      const YamlReader item(path.string(), holder, fmt::format("seeds[{}]", i));
      const auto seed = static_cast<std::uint64_t>(*item.optional_integer("seed", 0, INT64_MAX));
      if (!seen.insert(seed).second) top.fail("seeds", fmt::format("seed {} is listed twice", seed));
      c.seeds.push_back(seed);
    }
  }
  c.concurrency = static_cast<int>(top.optional_integer("concurrency", 1, 1000000).value_or(256));
  c.budget_tokens_per_task = top.optional_integer("budget_tokens_per_task", 100, INT64_MAX);
  c.reask_unparsed = static_cast<int>(top.optional_integer("reask_unparsed", 0, 5).value_or(1));
  if (top.has("metrics")) {
    const YamlReader metrics = top.map("metrics");
    metrics.only_keys({"u_intra_lambda"});
    if (auto lambda = metrics.optional_number("u_intra_lambda", 0, 1)) c.metrics.u_intra_lambda = *lambda;
  }
  if (top.has("training")) c.training = read_training(top.map("training"), agent_names, path);
  return c;
}

}  // namespace

const ModelConfig* ExperimentConfig::model(const std::string& model_name) const {
  for (const auto& m : models) {
    if (m.name == model_name) return &m;
  }
  return nullptr;
}

const AgentConfig* ExperimentConfig::agent(const std::string& agent_name) const {
  for (const auto& a : agents) {
    if (a.name == agent_name) return &a;
  }
  return nullptr;
}

// Input files enter by content (input_files(), checked by the runner), never by path: the same
// experiment named as `x.yaml`, `./x.yaml` or `/abs/x.yaml` resolves its files to different
// strings, and must still resume.
std::string ExperimentConfig::fingerprint() const {
  constexpr const char* kFileByContent = "(file, by content)";
  nlohmann::json j;
  for (const auto& m : models) {
    j["models"].push_back({m.name, static_cast<int>(m.backend), m.endpoint.base_url, m.endpoint.model,
                           m.simulator_profile, m.simulator_params.empty() ? "" : kFileByContent});
    if (m.simulator_lean != 0.0) j["models"].back().push_back({"lean", m.simulator_lean});  // only when set
    if (!m.simulator_policy.empty()) j["models"].back().push_back({"policy", kFileByContent});
  }
  for (const auto& a : agents) {
    j["agents"].push_back({a.name, a.model, a.sampling.temperature, a.sampling.top_p, a.sampling.max_tokens,
                           a.sampling.logprobs, a.system_prompt});
  }
  j["dataset"] = {kFileByContent, static_cast<int>(dataset.format), dataset.limit ? *dataset.limit : 0};
  // Only when set, so that older runs resume.
  if (!dataset.labels.empty()) j["dataset"].push_back({"labels", kFileByContent});
  if (!dataset.evidence.empty()) j["dataset"].push_back({"evidence", kFileByContent});
  for (const auto& p : protocols) {
    nlohmann::json params;
    for (const auto& [key, value] : p.params.values()) {
      std::visit([&params, &name = key](const auto& v) { params[name] = v; }, value);  // clang 14: no capture of a binding
    }
    for (const ParamSpec& spec : find_protocol(p.name)->params) {
      if (spec.kind == ParamKind::kPath && params.contains(spec.name) && params[spec.name] != "")
        params[spec.name] = kFileByContent;
    }
    j["protocols"].push_back({p.name, p.label, p.agents, params, p.judges, p.judging.reasks,
                              p.judging.mask_identities, judge_scale_name(p.judging.scale),
                              judge_aggregation_name(p.judging.aggregation), p.best_of});
    // Only when set, so that runs stored before `embeddings:` existed keep their fingerprints.
    if (!p.embedding_model.empty()) j["protocols"].back().push_back({"embeddings", p.embedding_model});
    // Likewise only when not the paper's, which every run stored before `best_of_jitter` used.
    if (p.best_of_jitter != kPaperBestOfJitter)
      j["protocols"].back().push_back({"best_of_jitter", p.best_of_jitter});
    if (p.attack.active()) {
      const std::string& instruction = p.attack.instruction.empty() ? kDefaultAttackInstruction : p.attack.instruction;
      j["protocols"].back().push_back({"compromised", p.attack.agents, p.attack.count, instruction});
    }
  }
  j["seeds"] = seeds;
  j["budget"] = budget_tokens_per_task ? *budget_tokens_per_task : -1;
  j["reask"] = reask_unparsed;
  // Runs stored before `metrics:` existed used λ = 0.5; leaving that value out of the hash keeps
  // their fingerprints, so they can still be resumed.
  constexpr double kLambdaOfOlderRuns = 0.5;
  if (metrics.u_intra_lambda != kLambdaOfOlderRuns) j["u_intra_lambda"] = metrics.u_intra_lambda;
  return hash_hex128(j.dump());
}

std::vector<InputFile> ExperimentConfig::input_files() const {
  std::vector<InputFile> files;
  for (const auto& m : models) {
    if (!m.simulator_policy.empty())
      files.push_back({fmt::format("the revision policy file of model '{}'", m.name), m.simulator_policy});
    if (!m.simulator_params.empty()) {
      files.push_back({fmt::format("the simulator parameters of model '{}'", m.name), m.simulator_params});
    }
  }
  if (!dataset.path.empty()) files.push_back({"the dataset", dataset.path});  // a serve file has none
  if (!dataset.labels.empty()) files.push_back({"the label set (dataset.labels)", dataset.labels});
  if (!dataset.evidence.empty()) files.push_back({"the evidence corpus (dataset.evidence)", dataset.evidence});
  for (const auto& p : protocols) {
    for (const ParamSpec& spec : find_protocol(p.name)->params) {
      if (spec.kind != ParamKind::kPath || p.params.text(spec.name).empty()) continue;  // "": not given
      files.push_back({fmt::format("the {} file of protocol '{}'", spec.name, p.label), p.params.text(spec.name)});
    }
  }
  return files;
}

ExperimentConfig ExperimentConfig::served_experiment() const {
  ExperimentConfig served = *this;
  served.dataset = {};
  served.protocols = serve.value().models;
  served.seeds = {0};
  served.budget_tokens_per_task = serve->budget_tokens;
  served.training.reset();
  return served;
}

Result<ExperimentConfig> load_experiment(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const Result<std::string> text = read_input_file(path);
  if (!text) return Error{fmt::format("{}: {}", path.string(), text.error().message)};
  try {
    YAML::Node root;
    try {
      root = YAML::Load(text.value());
    } catch (const YAML::ParserException& e) {
      return Error{fmt::format("{}:{}: invalid YAML: {}", path.string(), e.mark.line + 1, e.msg)};
    }
    reject_duplicate_keys(path.string(), root);
    for (const auto& assignment : overrides) apply_override(root, assignment);
    return read_experiment(path, root);
  } catch (const ConfigError& e) {
    return Error{e.message};
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: {}", path.string(), e.what())};
  }
}

}  // namespace parley
