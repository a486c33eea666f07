#include "config/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace parley {

YamlReader::YamlReader(std::string file, YAML::Node node, std::string path)
    : file_(std::move(file)), node_(std::move(node)), path_(std::move(path)) {}

std::string YamlReader::key_path(const std::string& key) const {
  if (path_.empty()) return key;
  if (!key.empty() && key.front() == '[') return path_ + key;
  return path_ + "." + key;
}

std::string YamlReader::location(const YAML::Node& at) const {
  const YAML::Mark mark = at.IsDefined() ? at.Mark() : node_.Mark();
  if (mark.line < 0) return file_;
  return fmt::format("{}:{}", file_, mark.line + 1);
}

void YamlReader::fail(const std::string& key, const std::string& message) const {
  const YAML::Node at = node_.IsMap() ? node_[key] : YAML::Node();
  throw ConfigError{fmt::format("{}: {}: {}", location(at), key_path(key), message)};
}

void YamlReader::fail_here(const std::string& message) const {
  throw ConfigError{fmt::format("{}: {}: {}", location(node_), path_.empty() ? "(top level)" : path_, message)};
}

void YamlReader::only_keys(const std::set<std::string>& known, const std::string& what) const {
  for (const auto& item : node_) {
    const std::string key = item.first.as<std::string>();
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ConfigError{fmt::format("{}: {}: unknown key{} (known: {})", location(item.first), key_path(key),
                                    what.empty() ? "" : " " + what, list)};
    }
  }
}

bool YamlReader::has(const std::string& key) const { return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull(); }

YAML::Node YamlReader::scalar(const std::string& key) const {
  YAML::Node value = node_[key];
  if (!value.IsScalar()) fail(key, "expected a single value");
  return value;
}

std::string YamlReader::text(const std::string& key) const {
  if (!has(key)) fail(key, "missing required key");
  return scalar(key).Scalar();
}

std::optional<std::string> YamlReader::optional_text(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return scalar(key).Scalar();
}

std::optional<std::int64_t> YamlReader::optional_integer(const std::string& key, std::int64_t min,
                                                         std::int64_t max) const {
  if (!has(key)) return std::nullopt;
  const std::string raw = scalar(key).Scalar();
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec != std::errc() || end != raw.data() + raw.size()) fail(key, fmt::format("expected an integer, got '{}'", raw));
  if (value < min || value > max) fail(key, fmt::format("{} is out of range [{}, {}]", value, min, max));
  return value;
}

std::optional<double> YamlReader::optional_number(const std::string& key, double min, double max) const {
  if (!has(key)) return std::nullopt;
  const std::string raw = scalar(key).Scalar();
  double value = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec != std::errc() || end != raw.data() + raw.size() || !std::isfinite(value)) {
    fail(key, fmt::format("expected a number, got '{}'", raw));
  }
  if (value < min || value > max) fail(key, fmt::format("{} is out of range [{}, {}]", raw, min, max));
  return value;
}

std::optional<bool> YamlReader::optional_flag(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const std::string raw = scalar(key).Scalar();
  if (raw == "true" || raw == "True" || raw == "yes") return true;
  if (raw == "false" || raw == "False" || raw == "no") return false;
  fail(key, fmt::format("expected true or false, got '{}'", raw));
}

std::vector<std::string> YamlReader::text_list(const std::string& key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const YAML::Node seq = node_[key];
  if (!seq.IsSequence()) fail(key, "expected a list");
  for (const auto& item : seq) {
    if (!item.IsScalar()) fail(key, "expected a list of single values");
    out.push_back(item.Scalar());
  }
  return out;
}

YamlReader YamlReader::map(const std::string& key) const {
  if (!has(key)) fail(key, "missing required key");
  if (!node_[key].IsMap()) fail(key, "expected a mapping (key: value pairs)");
  return YamlReader(file_, node_[key], key_path(key));
}

std::vector<YamlReader> YamlReader::list(const std::string& key) const {
  if (!has(key)) fail(key, "missing required key");
  const YAML::Node seq = node_[key];
  if (!seq.IsSequence() || seq.size() == 0) fail(key, "expected a non-empty list");
  std::vector<YamlReader> out;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::string item_path = key_path(key) + fmt::format("[{}]", i);
    if (!seq[i].IsMap()) throw ConfigError{fmt::format("{}: {}: expected a mapping", location(seq[i]), item_path)};
    out.emplace_back(file_, seq[i], item_path);
  }
  return out;
}

void apply_override(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError{fmt::format("--set {}: expected key.path=value", assignment)};
  }
  const std::string key = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError{fmt::format("--set {}: value is not valid YAML: {}", key, e.msg)};
  }
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // yaml-cpp nodes are handles: walking with reset() keeps writes in the tree.
  YAML::Node current;
  current.reset(root);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) throw ConfigError{fmt::format("--set {}: empty key segment", key)};
    const bool last = i + 1 == parts.size();
    if (current.IsSequence()) {
      std::size_t index = 0;
      auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
      if (ec != std::errc() || end != part.data() + part.size() || index >= current.size()) {
        throw ConfigError{fmt::format("--set {}: '{}' is not an index of a list of {} items", key, part, current.size())};
      }
      if (last) {
        current[index] = value;
        return;
      }
      YAML::Node next = current[index];
      current.reset(next);
    } else {
      if (!current.IsMap() && current.IsDefined() && !current.IsNull()) {
        throw ConfigError{fmt::format("--set {}: '{}' is inside a single value", key, part)};
      }
      if (last) {
        current[part] = value;
        return;
      }
      YAML::Node next = current[part];
      current.reset(next);
    }
  }
}

void reject_duplicate_keys(const std::string& file, const YAML::Node& node) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) reject_duplicate_keys(file, item);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> first_line;
  for (const auto& pair : node) {
    if (pair.first.IsScalar()) {
      const std::string key = pair.first.Scalar();
      const int line = pair.first.Mark().line + 1;
      const auto [seen, inserted] = first_line.emplace(key, line);
      if (!inserted) {
        throw ConfigError{
            fmt::format("{}:{}: key '{}' given twice (first on line {})", file, line, key, seen->second)};
      }
    }
    reject_duplicate_keys(file, pair.second);
  }
}

}  // namespace parley
