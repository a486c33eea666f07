#pragma once
// Typed, checked reads from a YAML mapping, with error messages that name the file, line and
// key path ("exp.yaml:12: protocols[2].rounds: expected an integer, got 'two'"). Used only by
// the experiment loader; a failed check throws ConfigError, which load_experiment() turns into
// an Error value — the only exception in this layer, never seen outside it.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace parley {

struct ConfigError {
  std::string message;
};

// Fails on a mapping, anywhere in `node`, that gives one key twice: YAML forbids it and a
// parser would silently keep one of the two values.
void reject_duplicate_keys(const std::string& file, const YAML::Node& node);

class YamlReader {
 public:
  YamlReader(std::string file, YAML::Node node, std::string path);

  // Fails on any key of this mapping not in `known`.
  void only_keys(const std::set<std::string>& known, const std::string& what = "") const;
  bool has(const std::string& key) const;

  std::string text(const std::string& key) const;  // required
  std::optional<std::string> optional_text(const std::string& key) const;
  std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::optional<double> optional_number(const std::string& key, double min, double max) const;
  std::optional<bool> optional_flag(const std::string& key) const;
  std::vector<std::string> text_list(const std::string& key) const;

  // Child mapping / sequence items, as readers with extended paths.
  YamlReader map(const std::string& key) const;          // required mapping
  std::vector<YamlReader> list(const std::string& key) const;  // required non-empty sequence of mappings
  YAML::Node node(const std::string& key) const { return node_[key]; }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;
  std::string key_path(const std::string& key) const;

 private:
  std::string location(const YAML::Node& at) const;
  YAML::Node scalar(const std::string& key) const;

  std::string file_;
  YAML::Node node_;
  std::string path_;
};

// Applies one "a.b.0.c=value" override to a YAML tree.
void apply_override(YAML::Node& root, const std::string& assignment);

}  // namespace parley
