// load_label_set: a label set file (YAML) into a LabelSet. The format is in docs/formats.md,
// "Label sets"; LabelSet::make checks the labels and synonyms themselves.

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/files.h"
#include "parley/dataset.h"

namespace parley {
namespace {

struct LabelEntries {
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, std::string>> synonyms;  // synonym → label
};

// A scalar's text, or an error naming where it stood.
Result<std::string> scalar_text(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) return Error{fmt::format("{} must be a string", where)};
  return node.as<std::string>();
}

// One entry of `labels`: a name, or {name, synonyms: [...]}.
Result<bool> read_label(const YAML::Node& entry, std::size_t position, LabelEntries& out) {
  const std::string where = fmt::format("labels entry {}", position + 1);
  if (entry.IsScalar()) {
    out.labels.push_back(entry.as<std::string>());
    return true;
  }
  if (!entry.IsMap()) return Error{where + " must be a name or a map with `name` and `synonyms`"};
  for (const auto& key : entry) {
    auto name = scalar_text(key.first, where + ": a key");
    if (!name) return name.error();
    if (*name != "name" && *name != "synonyms") return Error{fmt::format("{}: unknown key '{}' (name, synonyms)", where, *name)};
  }
  auto label = scalar_text(entry["name"], where + ": name");
  if (!label) return label.error();
  out.labels.push_back(*label);
  if (const YAML::Node synonyms = entry["synonyms"]) {
    if (!synonyms.IsSequence()) return Error{fmt::format("{} ('{}'): synonyms must be a list", where, *label)};
    for (const YAML::Node& synonym : synonyms) {
      auto text = scalar_text(synonym, fmt::format("{} ('{}'): each synonym", where, *label));
      if (!text) return text.error();
      out.synonyms.emplace_back(*text, *label);
    }
  }
  return true;
}

Result<std::shared_ptr<const LabelSet>> label_set_from(const YAML::Node& root) {
  if (!root.IsMap()) return Error{"expected a map with `labels`"};
  for (const auto& key : root) {
    auto name = scalar_text(key.first, "a key");
    if (!name) return name.error();
    if (*name != "labels" && *name != "synonyms" && *name != "ordered") {
      return Error{fmt::format("unknown key '{}' (labels, synonyms, ordered)", *name)};
    }
  }
  const YAML::Node labels = root["labels"];
  if (!labels || !labels.IsSequence()) return Error{"`labels` must be a list"};
  LabelEntries entries;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (auto read = read_label(labels[i], i, entries); !read) return read.error();
  }
  if (const YAML::Node synonyms = root["synonyms"]) {
    if (!synonyms.IsMap()) return Error{"`synonyms` must be a map from synonym to label"};
    for (const auto& pair : synonyms) {
      auto synonym = scalar_text(pair.first, "each synonym");
      if (!synonym) return synonym.error();
      auto label = scalar_text(pair.second, fmt::format("synonyms: the label of '{}'", *synonym));
      if (!label) return label.error();
      entries.synonyms.emplace_back(std::move(*synonym), std::move(*label));
    }
  }
  bool ordered = false;
  if (const YAML::Node flag = root["ordered"]) {
    if (!flag.IsScalar() || (flag.as<std::string>() != "true" && flag.as<std::string>() != "false")) {
      return Error{"`ordered` must be true or false"};
    }
    ordered = flag.as<bool>();
  }
  auto set = LabelSet::make(std::move(entries.labels), entries.synonyms, ordered);
  if (!set) return set.error();
  return std::make_shared<const LabelSet>(std::move(*set));
}

}  // namespace

Result<std::shared_ptr<const LabelSet>> load_label_set(const std::filesystem::path& path) {
  Result<std::string> text = read_input_file(path);
  if (!text) return Error{fmt::format("{}: {}", path.string(), text.error().message)};
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: line {}: {}", path.string(), e.mark.line + 1, e.msg)};
  }
  auto set = label_set_from(root);
  if (!set) return Error{fmt::format("{}: {}", path.string(), set.error().message)};
  return set;
}

}  // namespace parley
