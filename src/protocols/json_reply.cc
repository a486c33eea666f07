#include "protocols/json_reply.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/text.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// Candidate objects: every balanced {...} span starting at a '{', strings respected.
std::vector<std::string_view> object_spans(std::string_view text) {
  std::vector<std::string_view> spans;
  for (std::size_t start = text.find('{'); start != std::string_view::npos; start = text.find('{', start + 1)) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = start; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{') ++depth;
      else if (c == '}' && --depth == 0) {
        spans.push_back(text.substr(start, i - start + 1));
        break;
      }
    }
  }
  return spans;
}

std::optional<double> as_number(const Json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    char* end = nullptr;
    const double parsed = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0' && std::isfinite(parsed)) return parsed;
  }
  return std::nullopt;
}

std::string range_text(const JsonField& field) {
  return fmt::format("{} from {} to {}", field.kind == JsonField::Kind::kInteger ? "an integer" : "a number",
                     field.min, field.max);
}

std::string allowed_text(const JsonField& field) {
  std::string out;
  for (const auto& a : field.allowed) out += (out.empty() ? "\"" : ", \"") + a + "\"";
  return out;
}

// Checks one field's value; returns the normalised value or a description of the problem.
Result<Json> check_field(const JsonField& field, const Json& value) {
  switch (field.kind) {
    case JsonField::Kind::kInteger:
    case JsonField::Kind::kNumber: {
      const auto number = as_number(value);
      const bool whole = number && std::floor(*number) == *number;
      if (!number || *number < field.min || *number > field.max ||
          (field.kind == JsonField::Kind::kInteger && !whole)) {
        return Error{fmt::format("field \"{}\" must be {}, got {}", field.name, range_text(field), value.dump())};
      }
      if (field.kind == JsonField::Kind::kInteger) return Json(static_cast<std::int64_t>(*number));
      return Json(*number);
    }
    case JsonField::Kind::kString:
      if (!value.is_string() || value.get<std::string>().empty())
        return Error{fmt::format("field \"{}\" must be a non-empty string", field.name)};
      return value;
    case JsonField::Kind::kChoice: {
      if (value.is_string()) {
        const std::string given = ascii_lower(value.get<std::string>());
        for (const auto& a : field.allowed)
          if (ascii_lower(a) == given) return Json(a);
      }
      return Error{fmt::format("field \"{}\" must be one of {}, got {}", field.name, allowed_text(field),
                               value.dump())};
    }
    case JsonField::Kind::kPermutation: {
      Json out = Json::array();
      std::set<std::string> seen;
      if (value.is_array()) {
        for (const auto& item : value) {
          if (!item.is_string()) break;
          const std::string given = ascii_lower(item.get<std::string>());
          auto it = std::find_if(field.allowed.begin(), field.allowed.end(),
                                 [&](const std::string& a) { return ascii_lower(a) == given; });
          if (it == field.allowed.end() || !seen.insert(*it).second) break;
          out.push_back(*it);
        }
      }
      if (out.size() != field.allowed.size() || value.size() != field.allowed.size())
        return Error{fmt::format("field \"{}\" must list each of {} exactly once", field.name, allowed_text(field))};
      return out;
    }
    case JsonField::Kind::kAccepted: {
      std::optional<std::string> accepted;
      if (value.is_string()) accepted = field.accept(value.get<std::string>());
      else if (value.is_number()) accepted = field.accept(value.dump());
      if (!accepted) return Error{fmt::format("field \"{}\" must be {}, got {}", field.name, field.expected, value.dump())};
      return Json(*accepted);
    }
  }
  return Error{"unknown field kind"};
}

}  // namespace

const nlohmann::json* json_member(const nlohmann::json& object, std::string_view name) {
  const std::string wanted = ascii_lower(std::string(name));
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (ascii_lower(it.key()) == wanted) return it->is_null() ? nullptr : &it.value();
  }
  return nullptr;
}

namespace {

Result<Json> check_object(const Json& object, const ReplySchema& schema) {
  Json out = Json::object();
  for (const auto& field : schema) {
    const Json* value = json_member(object, field.name);
    if (value == nullptr) {
      if (field.required) return Error{fmt::format("field \"{}\" is missing", field.name)};
      continue;
    }
    auto checked = check_field(field, *value);
    if (!checked) return checked.error();
    out[field.name] = std::move(checked.value());
  }
  return out;
}

}  // namespace

std::vector<nlohmann::json> json_objects_in(std::string_view text) {
  std::vector<Json> objects;
  for (std::string_view span : object_spans(text)) {
    Json object = Json::parse(span, nullptr, /*allow_exceptions=*/false);
    if (!object.is_discarded() && object.is_object()) objects.push_back(std::move(object));
  }
  return objects;
}

Result<nlohmann::json> read_json_reply(std::string_view text, const ReplySchema& schema) {
  return read_json_object<Json>(text, [&schema](const Json& object) { return check_object(object, schema); });
}

bool is_bare_json_object(std::string_view text) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.size() >= 6 && text.substr(0, 3) == "```" && text.substr(text.size() - 3) == "```") {
    text = text.substr(3, text.size() - 6);
    if (const std::size_t line_end = text.find('\n'); line_end != std::string_view::npos &&
                                                       text.substr(0, line_end).find('{') == std::string_view::npos)
      text.remove_prefix(line_end);  // the fence's language tag ("json")
    text = trim(text);
  }
  const std::vector<std::string_view> spans = object_spans(text);
  return !spans.empty() && spans.front().size() == text.size() &&
         !Json::parse(text, nullptr, /*allow_exceptions=*/false).is_discarded();
}

std::string describe_schema(const ReplySchema& schema) {
  std::string out = "{";
  for (const auto& field : schema) {
    if (out.size() > 1) out += ", ";
    out += "\"" + field.name + "\": ";
    switch (field.kind) {
      case JsonField::Kind::kInteger:
      case JsonField::Kind::kNumber:
        out += "<" + range_text(field) + ">";
        break;
      case JsonField::Kind::kString:
        out += "\"<text>\"";
        break;
      case JsonField::Kind::kChoice:
        out += "<one of " + allowed_text(field) + ">";
        break;
      case JsonField::Kind::kPermutation:
        out += "[<each of " + allowed_text(field) + ", best first>]";
        break;
      case JsonField::Kind::kAccepted:
        out += "<" + field.expected + ">";
        break;
    }
  }
  return out + "}";
}

StructuredAsk schema_ask(const ReplySchema& schema, int reasks) {
  StructuredAsk ask;
  ask.check = [schema](std::string_view reply) {
    auto read = read_json_reply(reply, schema);
    return read ? std::string() : read.error().message;
  };
  ask.format_reminder = "Reply with only a JSON object of this form: " + describe_schema(schema);
  ask.reasks = reasks;
  return ask;
}

Async<Result<nlohmann::json>> ask_verdict(Debate& debate, const Agent& judge, std::vector<ChatMessage> messages,
                                          TurnInfo info, const ReplySchema& schema, int reasks) {
  const StructuredReply reply =
      co_await debate.ask_structured(judge, std::move(messages), std::move(info), schema_ask(schema, reasks));
  if (!reply.valid()) co_return Error{reply.problem};
  co_return read_json_reply(reply.text, schema);
}

}  // namespace parley
