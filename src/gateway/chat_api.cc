// The OpenAI chat-completions format at the gateway's edge (chat_api.h): nlohmann::json reads a
// request body and writes the responses; the debate's own types stay on the inside.
#include "gateway/chat_api.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/utf8.h"
#include "parley/dataset.h"

namespace parley::gateway {
namespace {

using nlohmann::json;

ApiError bad(std::string message, std::string param = "", std::string code = "") {
  return ApiError{400, std::move(message), "invalid_request_error", std::move(param), std::move(code)};
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A present, non-null member.
const json* member(const json& object, const char* name) {
  const auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// A message's text: a string, or an array of parts of which only text parts are read.
std::variant<std::string, ApiError> message_text(const json& content, const std::string& param) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return bad("content must be a string or an array of text parts", param);
  std::string text;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string where = param + "[" + std::to_string(i) + "]";
    const json* type = part.is_object() ? member(part, "type") : nullptr;
    if (type == nullptr || !type->is_string()) return bad("each content part needs a type", where);
    if (*type != "text") {
      return bad("content parts of type '" + type->get<std::string>() + "' are not supported: a debate reads text",
                 where, "unsupported_content");
    }
    const json* part_text = member(part, "text");
    if (part_text == nullptr || !part_text->is_string()) return bad("a text part needs a text", where);
    if (!text.empty()) text += '\n';
    text += part_text->get<std::string>();
  }
  return text;
}

// The request's features a debate cannot honour: an error naming the first one present.
std::optional<ApiError> unsupported_feature(const json& body) {
  // Any JSON number equal to 1 (1, 1.0, 1e0), as OpenAI takes it.
  if (const json* n = member(body, "n"); n != nullptr && !(n->is_number() && n->get<double>() == 1.0)) {
    return bad(n->is_number() ? "n must be 1: a served debate gives one answer"
                              : "n must be a number, and 1: a served debate gives one answer",
               "n", "unsupported_value");
  }
  for (const char* name : {"tools", "functions"}) {
    if (const json* tools = member(body, name); tools != nullptr && !(tools->is_array() && tools->empty())) {
      return bad(std::string(name) + " are not supported by a debate", name, "unsupported_parameter");
    }
  }
  if (const json* logprobs = member(body, "logprobs"); logprobs != nullptr && *logprobs != false) {
    return bad("logprobs are not supported: the answer is a debate's, not one sampled text", "logprobs",
               "unsupported_parameter");
  }
  if (const json* format = member(body, "response_format"); format != nullptr) {
    const json* type = format->is_object() ? member(*format, "type") : nullptr;
    if (type == nullptr || *type != "text") {
      return bad("only response_format {\"type\": \"text\"} is supported", "response_format", "unsupported_value");
    }
  }
  return std::nullopt;
}

// `parley`: the request extension. Its task fields become a parley JSONL row, read as a dataset
// row is (so gold and options are checked and made canonical the same way); the limits are read here.
std::optional<ApiError> read_extension(const json& extension, CompletionRequest& request, json& row) {
  if (!extension.is_object()) return bad("parley must be an object", "parley");
  static const char* const kKeys[] = {"answer_type", "options", "gold", "tolerance", "task_id", "budget_tokens",
                                      "deadline_s"};
  for (const auto& [key, value] : extension.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return bad("unknown key '" + key + "' (known: answer_type, options, gold, tolerance, task_id, budget_tokens, "
                 "deadline_s)", "parley." + key);
    }
  }
  // Each value's type first: only scalars and a list of strings are copied into the task's row
  // (copying a deeply nested value would recurse as deep as it goes).
  for (const char* scalar : {"answer_type", "gold", "tolerance"}) {
    if (const json* value = member(extension, scalar); value != nullptr && value->is_structured())
      return bad(std::string(scalar) + " must be a string or a number", std::string("parley.") + scalar);
  }
  if (const json* options = member(extension, "options")) {
    if (!options->is_array() || !std::all_of(options->begin(), options->end(), [](const json& o) { return o.is_string(); }))
      return bad("options must be a list of strings", "parley.options");
  }
  if (const json* type = member(extension, "answer_type")) {
    if (*type == "label") {
      return bad("answer_type label needs a label set, which parley serve does not read", "parley.answer_type",
                 "unsupported_value");
    }
    row["answer_type"] = *type;
  }
  if (const json* options = member(extension, "options")) row["options"] = *options;
  if (const json* gold = member(extension, "gold")) row["answer"] = *gold;
  if (const json* tolerance = member(extension, "tolerance")) row["tolerance"] = *tolerance;
  if (const json* id = member(extension, "task_id")) {
    const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
    if (!id->is_string() || trim(id->get_ref<const std::string&>()).empty() || id->get_ref<const std::string&>().size() > 200 ||
        std::any_of(id->get_ref<const std::string&>().begin(), id->get_ref<const std::string&>().end(), control))
      return bad("task_id must be a non-empty string of at most 200 characters, without control characters",
                 "parley.task_id");
    request.task_id = std::string(trim(id->get_ref<const std::string&>()));
  }
  if (const json* budget = member(extension, "budget_tokens")) {
    if (!budget->is_number_integer() || budget->get<std::int64_t>() < 1)
      return bad("budget_tokens must be a positive integer", "parley.budget_tokens");
    request.budget_tokens = budget->get<std::int64_t>();
  }
  if (const json* deadline = member(extension, "deadline_s")) {
    if (!deadline->is_number() || !(deadline->get<double>() > 0.0) || !std::isfinite(deadline->get<double>()))
      return bad("deadline_s must be a positive number of seconds", "parley.deadline_s");
    request.deadline_s = deadline->get<double>();
  }
  return std::nullopt;
}

json usage_json(const Transcript& transcript) {
  const DebateUsage usage = usage_of(transcript);
  json out = {{"prompt_tokens", usage.prompt_tokens},
              {"completion_tokens", usage.completion_tokens},
              {"total_tokens", usage.prompt_tokens + usage.completion_tokens},
              {"prompt_tokens_details", {{"cached_tokens", usage.cached_tokens}}}};
  if (usage.estimated) out["parley_estimated"] = true;
  return out;
}

// Whether the debate debated: a selective protocol's `trigger` decision, else whether any agent
// answered after the opening round.
bool debate_triggered(const Transcript& transcript) {
  for (const EventRecord& event : transcript.events) {
    if (event.kind != "trigger") continue;
    const json detail = json::parse(event.detail, nullptr, false);
    if (detail.is_object() && detail.contains("decision")) return detail["decision"] == "debate";
  }
  return std::any_of(transcript.messages.begin(), transcript.messages.end(), [](const MessageRecord& call) {
    return call.round >= 1 && is_agent_answer_role(call.role) && !call.error;  // a cancelled call answered nothing
  });
}

int rounds_of(const Transcript& transcript) {
  int rounds = 0;
  for (const MessageRecord& call : transcript.messages) rounds = std::max(rounds, call.round);
  return rounds;
}

json summary_json(const DebateSummary& summary, const Transcript& transcript) {
  json decision = {{"answer", transcript.final_answer ? json(*transcript.final_answer) : json(nullptr)},
                   {"status", debate_status_name(transcript.status)}};
  if (!transcript.status_reason.empty()) decision["reason"] = transcript.status_reason;
  json out = {{"protocol", summary.protocol},
              {"rounds", rounds_of(transcript)},
              {"calls", transcript.calls()},
              {"debate_triggered", debate_triggered(transcript)},
              {"decision", std::move(decision)},
              {"transcript_id", {{"task_id", transcript.task_id}, {"model", summary.model}, {"seed", transcript.seed}}},
              {"simulated", summary.simulated}};
  if (!transcript.gold.empty()) out["correct"] = transcript.correct;
  return out;
}

json chunk(const DebateSummary& summary, std::int64_t created, json delta, json finish = nullptr) {
  return {{"id", summary.id},
          {"object", "chat.completion.chunk"},
          {"created", created},
          {"model", summary.model},
          {"choices", json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}})}};
}

}  // namespace

std::string error_json(const ApiError& error) {
  return json{{"error",
               {{"message", error.message},
                {"type", error.type},
                {"param", error.param.empty() ? json(nullptr) : json(error.param)},
                {"code", error.code.empty() ? json(nullptr) : json(error.code)}}}}
      // A message quoting the request (a model name, a path cut at 200 bytes) may hold bytes
      // that are not UTF-8: each becomes U+FFFD rather than failing the answer.
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<InferredChoice> infer_options(std::string_view question) {
  // The lines of the question, from the end: an option block is the last lines.
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= question.size();) {
    const std::size_t end = std::min(question.find('\n', start), question.size());
    lines.push_back(question.substr(start, end - start));
    start = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  // "A) text", "(A) text", "A. text", "A: text" → (letter, text).
  auto option_line = [](std::string_view line) -> std::optional<std::pair<char, std::string_view>> {
    line = trim(line);
    const bool parenthesised = !line.empty() && line.front() == '(';
    if (parenthesised) line.remove_prefix(1);
    if (line.size() < 3 || line[0] < 'A' || line[0] > 'Z') return std::nullopt;
    const char letter = line[0];
    const char mark = line[1];
    if (parenthesised ? mark != ')' : (mark != ')' && mark != '.' && mark != ':')) return std::nullopt;
    if (!std::isspace(static_cast<unsigned char>(line[2]))) return std::nullopt;
    const std::string_view text = trim(line.substr(3));
    if (text.empty()) return std::nullopt;
    return std::pair{letter, text};
  };
  std::size_t first = lines.size();
  while (first > 0 && option_line(lines[first - 1])) --first;
  std::vector<std::string> options;
  for (std::size_t i = first; i < lines.size(); ++i) {
    const auto [letter, text] = *option_line(lines[i]);
    // The block must run A, B, C, … from its first line; a block not starting at A is not options.
    if (letter != static_cast<char>('A' + options.size())) {
      if (options.empty()) continue;  // lines before the block's "A)" are question text
      return std::nullopt;
    }
    if (options.empty()) first = i;
    options.emplace_back(text);
  }
  if (options.size() < 2) return std::nullopt;
  std::string stem;
  for (std::size_t i = 0; i < first; ++i) stem += std::string(lines[i]) + (i + 1 < first ? "\n" : "");
  if (trim(stem).empty()) return std::nullopt;
  return InferredChoice{std::string(trim(stem)), std::move(options)};
}

std::variant<CompletionRequest, ApiError> parse_completion_request(std::string_view body) {
  if (const auto at = invalid_utf8_at(body)) {
    return bad("the request body is not valid UTF-8 (at byte " + std::to_string(*at) + ")", "", "invalid_json");
  }
  const json request_json = json::parse(body, nullptr, false);
  if (request_json.is_discarded()) return bad("the request body is not JSON", "", "invalid_json");
  if (!request_json.is_object()) return bad("the request body is JSON but not an object", "", "invalid_json");
  CompletionRequest request;
  const json* model = member(request_json, "model");
  if (model == nullptr || !model->is_string() || model->get_ref<const std::string&>().empty())
    return bad("you must provide a model parameter", "model");
  request.model = model->get<std::string>();

  const json* messages = member(request_json, "messages");
  if (messages == nullptr || !messages->is_array() || messages->empty())
    return bad("messages must be a non-empty array", "messages");
  for (std::size_t i = 0; i < messages->size(); ++i) {
    const json& message = (*messages)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    const json* role = message.is_object() ? member(message, "role") : nullptr;
    if (role == nullptr || !role->is_string()) return bad("each message needs a role", where + ".role");
  }
  const json& last = messages->back();
  const std::string last_param = "messages[" + std::to_string(messages->size() - 1) + "]";
  if (last["role"] != "user") return bad("the last message must be the user's question", last_param + ".role");
  const json* content = member(last, "content");
  if (content == nullptr) return bad("the last message has no content", last_param + ".content");
  auto text = message_text(*content, last_param + ".content");
  if (auto* error = std::get_if<ApiError>(&text)) return std::move(*error);
  const std::string question(trim(std::get<std::string>(text)));
  if (question.empty()) return bad("the question (the last user message) is empty", last_param + ".content");

  if (auto error = unsupported_feature(request_json)) return std::move(*error);
  if (const json* stream = member(request_json, "stream")) {
    if (!stream->is_boolean()) return bad("stream must be a boolean", "stream");
    request.stream = stream->get<bool>();
  }
  if (const json* options = member(request_json, "stream_options")) {
    if (!options->is_object() && !options->is_null()) return bad("stream_options must be an object", "stream_options");
    const json* usage = options->is_object() ? member(*options, "include_usage") : nullptr;
    if (usage != nullptr && !usage->is_boolean()) return bad("include_usage must be a boolean", "stream_options");
    request.include_usage = usage != nullptr && usage->get<bool>();
  }
  if (const json* seed = member(request_json, "seed")) {
    if (!seed->is_number_integer() || seed->get<std::int64_t>() < 0) return bad("seed must be an integer >= 0", "seed");
    request.seed = seed->get<std::uint64_t>();
  }

  json row = {{"id", "request"}, {"question", question}};
  if (const json* extension = member(request_json, "parley")) {
    if (auto error = read_extension(*extension, request, row)) return std::move(*error);
  }
  // Options written in the question, when the request names none: the question without them.
  const bool typed = row.contains("answer_type");
  if (!row.contains("options") && (!typed || row["answer_type"] == "choice")) {
    if (auto inferred = infer_options(question)) {
      row["question"] = inferred->question;
      row["options"] = inferred->options;
      request.options_inferred = true;
    }
  }
  auto task = task_from_json(row.dump());
  if (!task) return bad(task.error().message, "parley");
  request.question = std::move(task->question);
  request.options = std::move(task->options);
  request.answer_type = task->answer_type;
  if (!task->answer.empty()) request.gold = std::move(task->answer);
  request.tolerance = task->tolerance;
  return request;
}

std::optional<std::string> task_difference(const Task& known, const Task& asked) {
  if (known.question != asked.question) return "question";
  if (known.options != asked.options) return "options";
  if (known.answer_type != asked.answer_type) return "answer_type";
  if (known.answer != asked.answer) return "gold";
  if (known.tolerance != asked.tolerance) return "tolerance";
  return std::nullopt;
}

DebateUsage usage_of(const Transcript& transcript) {
  DebateUsage usage;
  for (const MessageRecord& call : transcript.messages) {
    usage.prompt_tokens += call.prompt_tokens;
    usage.completion_tokens += call.completion_tokens;
    usage.cached_tokens += call.cached_tokens;
    usage.estimated = usage.estimated || call.tokens_estimated;
  }
  return usage;
}

std::string answer_text(const Transcript& transcript) {
  if (!transcript.final_answer) {
    return transcript.status_reason.empty() ? "No answer: no agent gave a readable one."
                                            : "No answer: " + transcript.status_reason;
  }
  const MessageRecord* best = nullptr;
  for (const MessageRecord& call : transcript.messages) {
    if (!is_agent_answer_role(call.role) || call.role == "draft" || call.answer != transcript.final_answer) continue;
    if (best == nullptr || call.round > best->round) best = &call;  // the first seat of the latest round
  }
  if (best != nullptr && !trim(best->text).empty()) return best->text;
  return "Final answer: " + *transcript.final_answer;
}

std::string client_call_error(std::string_view recorded) {
  const std::string_view kind = recorded.substr(0, recorded.find(':'));
  if (kind == "http_status") {
    // "http_status: HTTP 503: <the server's text>": the status only.
    constexpr std::string_view kHttp = "http_status: HTTP ";
    const std::string_view rest = recorded.rfind(kHttp, 0) == 0 ? recorded.substr(kHttp.size()) : std::string_view();
    const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    if (rest.size() >= 3 && std::all_of(rest.begin(), rest.begin() + 3, digit)) {
      return "backend call failed: HTTP " + std::string(rest.substr(0, 3));
    }
    return "backend call failed: an HTTP error";
  }
  if (kind == "timeout") return "backend call timed out";
  if (kind == "connection") return "backend connection failed";
  if (kind == "bad_response") return "backend reply could not be read";
  if (kind == "too_large") return "backend reply too large";
  if (kind == "unsupported") return "backend does not support the request";
  if (kind == "cancelled") return "call cancelled";
  return "backend call failed";
}

std::string debate_failure_message(const Transcript& transcript) {
  const auto failed = std::find_if(transcript.messages.rbegin(), transcript.messages.rend(),
                                   [](const MessageRecord& call) { return call.error.has_value(); });
  const std::string what = failed == transcript.messages.rend()
                               ? std::string("the debate failed")
                               : "the debate failed: " + client_call_error(*failed->error);
  return what + " (stored as task '" + transcript.task_id + "')";
}

const char* finish_reason(const Transcript& transcript) {
  return transcript.status == DebateStatus::kBudget ? "length" : "stop";
}

std::string completion_json(const DebateSummary& summary, const Transcript& transcript, std::int64_t created) {
  json out = {{"id", summary.id},
              {"object", "chat.completion"},
              {"created", created},
              {"model", summary.model},
              {"choices", json::array({{{"index", 0},
                                        {"message", {{"role", "assistant"}, {"content", answer_text(transcript)}}},
                                        {"logprobs", nullptr},
                                        {"finish_reason", finish_reason(transcript)}}})},
              {"usage", usage_json(transcript)},
              {"parley", summary_json(summary, transcript)}};
  return out.dump();
}

std::string role_chunk_json(const DebateSummary& summary, std::int64_t created) {
  return chunk(summary, created, {{"role", "assistant"}, {"content", ""}}).dump();
}

std::string call_chunk_json(const DebateSummary& summary, std::int64_t created, const MessageRecord& call) {
  json progress = {{"kind", "call"},
                   {"id", call.id},
                   {"round", call.round},
                   {"agent", call.agent},
                   {"role", call.role},
                   {"answer", call.answer ? json(*call.answer) : json(nullptr)},
                   {"prompt_tokens", call.prompt_tokens},
                   {"completion_tokens", call.completion_tokens}};
  if (call.confidence) progress["confidence"] = *call.confidence;
  if (call.error) progress["error"] = client_call_error(*call.error);
  json out = chunk(summary, created, json::object());
  out["parley"] = {{"progress", std::move(progress)}};
  return out.dump();
}

std::string event_chunk_json(const DebateSummary& summary, std::int64_t created, const EventRecord& event) {
  json out = chunk(summary, created, json::object());
  out["parley"] = {{"progress", {{"kind", "event"}, {"round", event.round}, {"event", event.kind}, {"detail", event.detail}}}};
  return out.dump();
}

std::string content_chunk_json(const DebateSummary& summary, std::int64_t created, const std::string& content) {
  return chunk(summary, created, {{"content", content}}).dump();
}

std::string finish_chunk_json(const DebateSummary& summary, std::int64_t created, const Transcript& transcript) {
  json out = chunk(summary, created, json::object(), finish_reason(transcript));
  out["parley"] = summary_json(summary, transcript);
  return out.dump();
}

std::string usage_chunk_json(const DebateSummary& summary, std::int64_t created, const Transcript& transcript) {
  return json{{"id", summary.id},
              {"object", "chat.completion.chunk"},
              {"created", created},
              {"model", summary.model},
              {"choices", json::array()},
              {"usage", usage_json(transcript)}}
      .dump();
}

std::string models_json(const std::vector<std::string>& models, std::int64_t created) {
  json data = json::array();
  for (const std::string& model : models) {
    data.push_back({{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "parley"}});
  }
  return json{{"object", "list"}, {"data", std::move(data)}}.dump();
}

}  // namespace parley::gateway
