// Transcript <-> JSON: the transcripts.jsonl line format (docs/formats.md) and the form the
// store keeps. Written directly in a fixed field order (JsonWriter: the bytes nlohmann would
// write), so exports are byte-stable across runs; read with simdjson's On-Demand parser, in
// any field order, with the defaults of fields older parleys did not write.
#include <simdjson.h>

#include <bitset>
#include <limits>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "core/json_writer.h"
#include "parley/store.h"

namespace parley {
namespace {

using simdjson::ondemand::value;

// A field the reader found with the wrong JSON type, or missing; ends the read.
struct FormatError {
  std::string message;
};

std::string read_string(value v) { return std::string(std::string_view(v.get_string())); }

std::optional<std::string> read_optional_string(value v) {
  if (v.is_null()) return std::nullopt;
  return read_string(v);
}

std::optional<double> read_optional_double(value v) {
  if (v.is_null()) return std::nullopt;
  return double(v.get_double());
}

std::vector<std::string> read_strings(value v) {
  std::vector<std::string> out;
  for (auto element : v.get_array()) out.push_back(read_string(element.value()));
  return out;
}

// An int field (a call's id, round, the call it repeats or extends): one outside int's range is a
// malformed record, never truncated onto another call.
int read_int(value v) {
  const std::int64_t read = v.get_int64();
  if (read < std::numeric_limits<int>::min() || read > std::numeric_limits<int>::max())
    throw FormatError{fmt::format("{} is out of range for an integer field", read)};
  return static_cast<int>(read);
}

// Required fields, by bit; `what` names the object in the error.
template <std::size_t N>
void require(const std::bitset<N>& seen, const std::array<const char*, N>& names, const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (!seen[i]) throw FormatError{fmt::format("{} has no \"{}\"", what, names[i])};
  }
}

// A prompt: [{"role": ..., "content": ...}, ...].
std::vector<ChatMessage> read_prompt(value v) {
  std::vector<ChatMessage> prompt;
  for (auto element : v.get_array()) {
    ChatMessage message;
    bool role = false, content = false;
    for (auto field : element.value().get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "role") {
        message.role = read_string(field.value()); role = true;
      } else if (key == "content") {
        message.content = SharedText(read_string(field.value())); content = true;
      }
    }
    if (!role || !content) throw FormatError{"a prompt message has no \"role\" or \"content\""};
    prompt.push_back(std::move(message));
  }
  return prompt;
}

MessageRecord read_message(value v, CallTexts texts) {
  static constexpr std::array<const char*, 7> kRequired = {"id", "round", "agent", "role", "prompt_tokens",
                                                           "completion_tokens", "text"};
  std::bitset<7> seen;
  MessageRecord m;
  for (auto field : v.get_object()) {
    const std::string_view key = field.unescaped_key();
    value f = field.value();
    if (key == "id") {
      m.id = read_int(f); seen[0] = true;
    } else if (key == "repeats") {
      if (!f.is_null()) m.repeats = read_int(f);
    } else if (key == "round") {
      m.round = read_int(f); seen[1] = true;
    } else if (key == "agent") {
      m.agent = read_string(f); seen[2] = true;
    } else if (key == "role") {
      m.role = read_string(f); seen[3] = true;
    } else if (key == "prompt_tokens") {
      m.prompt_tokens = f.get_int64(); seen[4] = true;
    } else if (key == "completion_tokens") {
      m.completion_tokens = f.get_int64(); seen[5] = true;
    } else if (key == "cached_tokens") {
      m.cached_tokens = f.get_int64();
    } else if (key == "tokens_estimated") {
      m.tokens_estimated = f.get_bool();
    } else if (key == "text") {
      if (texts == CallTexts::kRead) m.text = read_string(f);
      seen[6] = true;
    } else if (key == "reasoning") {
      if (texts == CallTexts::kRead) m.reasoning = read_string(f);
    } else if (key == "answer") {
      m.answer = read_optional_string(f);
    } else if (key == "confidence") {
      m.confidence = read_optional_double(f);
    } else if (key == "latency_ms") {
      m.latency_ms = f.get_double();
    } else if (key == "attempts") {
      m.attempts = read_int(f);
    } else if (key == "error") {
      m.error = read_optional_string(f);
    } else if (key == "min_token_logprob") {
      m.min_token_logprob = read_optional_double(f);
    } else if (key == "perplexity") {
      m.perplexity = read_optional_double(f);
    } else if (key == "shown") {
      m.shown = read_strings(f);
    } else if (key == "warnings") {
      m.warnings = read_strings(f);
    } else if (key == "prompt_extends") {
      if (!f.is_null()) m.prompt_extends = read_int(f);
    } else if (key == "prompt") {
      // Skipped with the texts: a prompt is text too, and the readers that skip texts only count.
      if (texts == CallTexts::kRead) {
        m.prompt = read_prompt(f);
      } else {
        m.prompt.emplace();
      }
    }
  }
  // Calls written before they had an identity cannot be told apart when a re-ask is folded
  // into its turn, so such a transcript is refused rather than measured by a guess.
  if (!seen[0]) {
    throw FormatError{"its calls have no \"id\" (written by an older parley, whose re-asks do not name the call "
                      "they repeat); run the experiment again with this parley"};
  }
  require(seen, kRequired, "a call");
  return m;
}

EventRecord read_event(value v) {
  static constexpr std::array<const char*, 3> kRequired = {"round", "kind", "detail"};
  std::bitset<3> seen;
  EventRecord e;
  for (auto field : v.get_object()) {
    const std::string_view key = field.unescaped_key();
    if (key == "round") {
      e.round = read_int(field.value()); seen[0] = true;
    } else if (key == "kind") {
      e.kind = read_string(field.value()); seen[1] = true;
    } else if (key == "detail") {
      e.detail = read_string(field.value()); seen[2] = true;
    }
  }
  require(seen, kRequired, "an event");
  return e;
}

void read_messages(value v, Transcript& t, CallTexts texts) {
  // Read into a vector kept for the thread, then moved into one of the exact size: transcripts
  // are read back thousands at a time, and vectors grown by doubling held up to twice their records.
  thread_local std::vector<MessageRecord> records;
  records.clear();
  struct Emptied {  // on every way out, so that a malformed record keeps no texts on the thread
    ~Emptied() { records.clear(); }
  } emptied;
  for (auto element : v.get_array()) {
    MessageRecord record = read_message(element.value(), texts);
    const int index = static_cast<int>(t.messages.size() + records.size());
    if (record.id != index) throw FormatError{fmt::format("call {} has id {}; ids are the calls' positions", index, record.id)};
    if (record.repeats && (*record.repeats < 0 || *record.repeats >= index)) {
      throw FormatError{fmt::format("call {} repeats call {}, which is not an earlier call", index, *record.repeats)};
    }
    if (record.prompt_extends && (*record.prompt_extends < 0 || *record.prompt_extends >= index)) {
      throw FormatError{
          fmt::format("call {}'s prompt extends call {}, which is not an earlier call", index, *record.prompt_extends)};
    }
    if (record.prompt_extends) {
      const std::size_t extended = static_cast<std::size_t>(*record.prompt_extends);
      const MessageRecord& earlier =
          extended < t.messages.size() ? t.messages[extended] : records[extended - t.messages.size()];
      if (earlier.agent != record.agent) {
        throw FormatError{fmt::format("call {} of {} extends call {} of {}: a prompt extends its own agent's", index,
                                      record.agent, extended, earlier.agent)};
      }
    }
    records.push_back(std::move(record));
  }
  t.messages.reserve(t.messages.size() + records.size());
  t.messages.insert(t.messages.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
}

Transcript read_transcript(value root, CallTexts texts) {
  static constexpr std::array<const char*, 7> kRequired = {"task_id", "protocol", "seed", "gold", "correct",
                                                           "status", "messages"};
  std::bitset<7> seen;
  Transcript t;
  for (auto field : root.get_object()) {
    const std::string_view key = field.unescaped_key();
    value f = field.value();
    if (key == "task_id") {
      t.task_id = read_string(f); seen[0] = true;
    } else if (key == "protocol") {
      t.protocol = read_string(f); seen[1] = true;
    } else if (key == "seed") {
      t.seed = f.get_uint64(); seen[2] = true;
    } else if (key == "question") {
      t.question = read_string(f);
    } else if (key == "options") {
      t.options = read_strings(f);
    } else if (key == "gold") {
      t.gold = read_string(f); seen[3] = true;
    } else if (key == "answer_type") {
      const std::string name = read_string(f);
      t.answer_type = parse_answer_type(name);
      if (!t.answer_type) throw FormatError{fmt::format("unknown answer_type \"{}\"", name)};
    } else if (key == "tolerance") {
      t.tolerance = read_optional_double(f);
    } else if (key == "final_answer") {
      t.final_answer = read_optional_string(f);
    } else if (key == "correct") {
      t.correct = f.get_bool(); seen[4] = true;
    } else if (key == "status") {
      const std::string name = read_string(f);
      auto status = parse_debate_status(name);
      if (!status) throw FormatError{fmt::format("unknown status \"{}\"", name)};
      t.status = *status; seen[5] = true;
    } else if (key == "status_reason") {
      t.status_reason = read_string(f);
    } else if (key == "wall_ms") {
      t.wall_ms = f.get_double();
    } else if (key == "metrics") {
      for (auto metric : f.get_object()) {
        const std::string name(std::string_view(metric.unescaped_key()));
        value v = metric.value();
        // A metric that was not a finite number is written null (JSON has no NaN): undefined.
        if (v.is_null()) continue;
        t.metrics[name] = v.get_double();
      }
    } else if (key == "events") {
      for (auto event : f.get_array()) t.events.push_back(read_event(event.value()));
    } else if (key == "messages") {
      read_messages(f, t, texts); seen[6] = true;
    }
  }
  require(seen, kRequired, "the transcript");
  return t;
}

void write_optional(JsonWriter& w, const std::optional<std::string>& value) {
  if (value) {
    w.string(*value);
  } else {
    w.null();
  }
}

void write_optional(JsonWriter& w, const std::optional<double>& value) {
  if (value) {
    w.number(*value);
  } else {
    w.null();
  }
}

void write_strings(JsonWriter& w, const std::vector<std::string>& values) {
  w.begin_array();
  for (const auto& value : values) w.string(value);
  w.end_array();
}

void write_message(JsonWriter& w, const MessageRecord& m) {
  w.begin_object();
  w.key("id").number(m.id);
  if (m.repeats) w.key("repeats").number(*m.repeats);
  w.key("round").number(m.round);
  w.key("agent").string(m.agent);
  w.key("role").string(m.role);
  w.key("prompt_tokens").number(m.prompt_tokens);
  w.key("completion_tokens").number(m.completion_tokens);
  w.key("cached_tokens").number(m.cached_tokens);
  w.key("tokens_estimated").boolean(m.tokens_estimated);
  w.key("text").string(m.text);
  if (!m.reasoning.empty()) w.key("reasoning").string(m.reasoning);
  write_optional(w.key("answer"), m.answer);
  write_optional(w.key("confidence"), m.confidence);
  w.key("latency_ms").number(m.latency_ms);
  w.key("attempts").number(m.attempts);
  if (m.error) w.key("error").string(*m.error);
  if (m.min_token_logprob) w.key("min_token_logprob").number(*m.min_token_logprob);
  if (m.perplexity) w.key("perplexity").number(*m.perplexity);
  if (!m.shown.empty()) write_strings(w.key("shown"), m.shown);
  if (!m.warnings.empty()) write_strings(w.key("warnings"), m.warnings);
  if (m.prompt_extends) w.key("prompt_extends").number(*m.prompt_extends);
  if (m.prompt) {
    w.key("prompt").begin_array();
    for (const ChatMessage& message : *m.prompt) {
      w.begin_object().key("role").string(message.role).key("content").string(message.content.str()).end_object();
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace

std::string transcript_to_json(const Transcript& t) {
  // Written directly (JsonWriter: nlohmann's bytes, invalid UTF-8 in model output replaced
  // rather than failing), in the fixed field order of docs/formats.md.
  std::string out;
  out.reserve(1024 + t.messages.size() * 768);
  JsonWriter w(out);
  w.begin_object();
  w.key("task_id").string(t.task_id);
  w.key("protocol").string(t.protocol);
  w.key("seed").number(t.seed);
  if (!t.question.empty()) w.key("question").string(t.question);
  if (!t.options.empty()) write_strings(w.key("options"), t.options);
  w.key("gold").string(t.gold);
  if (t.answer_type) w.key("answer_type").string(answer_type_name(*t.answer_type));
  if (t.tolerance) w.key("tolerance").number(*t.tolerance);
  write_optional(w.key("final_answer"), t.final_answer);
  w.key("correct").boolean(t.correct);
  w.key("status").string(debate_status_name(t.status));
  w.key("status_reason").string(t.status_reason);
  w.key("prompt_tokens").number(t.prompt_tokens());
  w.key("completion_tokens").number(t.completion_tokens());
  w.key("calls").number(t.calls());
  w.key("latency_ms").number(t.latency_ms());
  w.key("wall_ms").number(t.wall_ms);
  w.key("metrics").begin_object();
  for (const auto& [name, value] : t.metrics) w.key_text(name).number(value);
  w.end_object();
  w.key("events").begin_array();
  for (const auto& e : t.events) {
    w.begin_object().key("round").number(e.round).key("kind").string(e.kind).key("detail").string(e.detail).end_object();
  }
  w.end_array();
  w.key("messages").begin_array();
  for (const auto& m : t.messages) write_message(w, m);
  w.end_array();
  w.end_object();
  return out;
}

Result<Transcript> transcript_from_json(std::string_view text, CallTexts texts) {
  // One parser and one padded buffer per thread, reused: simdjson reads past the end of its
  // input, so the text is copied into room with padding.
  thread_local simdjson::ondemand::parser parser;
  thread_local std::string buffer;
  buffer.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  buffer.assign(text);
  try {
    simdjson::ondemand::document document =
        parser.iterate(simdjson::padded_string_view(buffer.data(), buffer.size(), buffer.capacity()));
    return read_transcript(document.get_value(), texts);
  } catch (const simdjson::simdjson_error& e) {
    return Error{fmt::format("transcript: {}", e.what())};
  } catch (const FormatError& e) {
    return Error{fmt::format("transcript: {}", e.message)};
  }
}

}  // namespace parley
