#pragma once
// Structured replies: finds the JSON object in a model's reply (bare, fenced or inside prose)
// and checks it against a small schema, so that judge verdicts are parsed at the edge and a
// malformed verdict is a described problem that can be re-asked, never an exception.
// Used by the judge (judge.cc) and by protocols whose roles answer in JSON (mad).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "parley/protocol.h"
#include "parley/result.h"

namespace parley {

struct JsonField {
  enum class Kind {
    kInteger,    // a whole number in [min, max] ("4" and 4.0 are accepted)
    kNumber,     // a number in [min, max] ("0.8" accepted)
    kString,     // any non-empty string
    kChoice,     // one of `allowed`, compared case-insensitively; stored as spelled in `allowed`
    kPermutation, // an array holding every entry of `allowed` exactly once (a ranking)
    kAccepted    // a string or number that `accept` takes; stored as `accept` returns it
  };
  std::string name;
  Kind kind = Kind::kString;
  double min = 0.0;
  double max = 0.0;
  std::vector<std::string> allowed;
  bool required = true;
  // kAccepted only: the normalised value, or nullopt when the value is not acceptable (e.g. an
  // answer outside the option set), and what is acceptable, in words for prompts and re-asks.
  std::function<std::optional<std::string>(const std::string&)> accept;
  std::string expected;
};

using ReplySchema = std::vector<JsonField>;

// The first JSON object in `text` that satisfies `schema`, normalised: keys spelled as in the
// schema (matched case-insensitively, so "score" and "Score" both work), numbers as numbers,
// choices as spelled in the schema. Fields not in the schema are dropped. The error names the
// first problem, in words that can be sent back to the model.
Result<nlohmann::json> read_json_reply(std::string_view text, const ReplySchema& schema);

// The value of `object`'s key `name`, matched case-insensitively ("Score" is "score"); nullptr
// when absent or null.
const nlohmann::json* json_member(const nlohmann::json& object, std::string_view name);

// Every JSON object in `text` (bare, fenced or inside prose), in text order.
std::vector<nlohmann::json> json_objects_in(std::string_view text);

// The first JSON object in `text` that `check` accepts, as `check` returns it; else the first
// object's problem, or that there is none. For replies whose structure a flat ReplySchema cannot
// say (MACI's arguments and distributions).
template <class T>
Result<T> read_json_object(std::string_view text, const std::function<Result<T>(const nlohmann::json&)>& check) {
  std::optional<Error> first_problem;
  for (const nlohmann::json& object : json_objects_in(text)) {
    auto checked = check(object);
    if (checked) return checked;
    if (!first_problem) first_problem = checked.error();
  }
  if (first_problem) return *first_problem;
  return Error{"the reply contains no JSON object"};
}

// Whether `text` is one JSON object and nothing else, allowing surrounding white space and a
// Markdown code fence around it. (iMAD App. A.1 rejects verdicts with text outside the object.)
bool is_bare_json_object(std::string_view text);

// A one-line description of the expected object, for prompts: {"score": <integer 1-5>, ...}.
std::string describe_schema(const ReplySchema& schema);

// A reply checked against `schema` (read_json_reply), re-asked `reasks` times with the schema's
// description as the reminder: what every judge call asks for.
StructuredAsk schema_ask(const ReplySchema& schema, int reasks);

// One judge call through Debate::ask_structured with schema_ask: the normalised verdict, or the
// last reply's problem as the Error.
Async<Result<nlohmann::json>> ask_verdict(Debate& debate, const Agent& judge, std::vector<ChatMessage> messages,
                                          TurnInfo info, const ReplySchema& schema, int reasks);

}  // namespace parley
