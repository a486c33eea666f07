// The trigger model file: TriggerModel::to_json / from_json / save / load. Format documented in
// docs/trigger.md ("parley-trigger-model", version 1). Doubles are written by nlohmann's shortest
// round-trip formatting, so a loaded model scores bit-for-bit like the saved one.

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "core/files.h"
#include "parley/trigger_model.h"
#include "trigger/mlp.h"

namespace parley {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "parley-trigger-model";
constexpr int kVersion = 1;

// Thrown inside from_json only and turned into an Error there.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw FormatError(path.empty() ? why : path + ": " + why);
}

const json& field(const json& obj, const std::string& key, const std::string& path) {
  if (!obj.is_object()) fail(path, "expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) fail(path, "missing field '" + key + "'");
  return *it;
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

double number(const json& obj, const std::string& key, const std::string& path) {
  const json& v = field(obj, key, path);
  if (!v.is_number()) fail(join(path, key), "expected a number");
  return v.get<double>();
}

int integer(const json& obj, const std::string& key, const std::string& path) {
  const json& v = field(obj, key, path);
  if (!v.is_number_integer()) fail(join(path, key), "expected an integer");
  return v.get<int>();
}

std::string text(const json& obj, const std::string& key, const std::string& path) {
  const json& v = field(obj, key, path);
  if (!v.is_string()) fail(join(path, key), "expected a string");
  return v.get<std::string>();
}

// Reads an array of exactly `size` numbers into `out` (anything with data() and operator[]).
template <class Vec>
void numbers(const json& obj, const std::string& key, const std::string& path, std::size_t size, Vec& out) {
  const json& v = field(obj, key, path);
  const std::string where = join(path, key);
  if (!v.is_array()) fail(where, "expected an array");
  if (v.size() != size)
    fail(where, "expected " + std::to_string(size) + " values, got " + std::to_string(v.size()));
  out.resize(static_cast<decltype(out.size())>(size));
  for (std::size_t i = 0; i < size; ++i) {
    if (!v[i].is_number()) fail(where + "[" + std::to_string(i) + "]", "expected a number");
    out[static_cast<decltype(out.size())>(i)] = v[i].get<double>();
  }
}

// Row `index` of a matrix stored as an array of rows.
void row_numbers(const json& arr, std::size_t index, const std::string& path, std::size_t size,
                 Eigen::VectorXd& out) {
  const json& v = arr[index];
  const std::string where = path + "[" + std::to_string(index) + "]";
  if (!v.is_array()) fail(where, "expected an array");
  if (v.size() != size)
    fail(where, "expected " + std::to_string(size) + " values, got " + std::to_string(v.size()));
  out.resize(static_cast<Eigen::Index>(size));
  for (std::size_t i = 0; i < size; ++i) {
    if (!v[i].is_number()) fail(where + "[" + std::to_string(i) + "]", "expected a number");
    out[static_cast<Eigen::Index>(i)] = v[i].get<double>();
  }
}

void matrix(const json& obj, const std::string& key, const std::string& path, Eigen::Index rows,
            Eigen::Index cols, Eigen::MatrixXd& out) {
  const json& v = field(obj, key, path);
  const std::string where = join(path, key);
  if (!v.is_array()) fail(where, "expected an array of rows");
  if (v.size() != static_cast<std::size_t>(rows)) {
    fail(where, "expected " + std::to_string(rows) + " rows, got " + std::to_string(v.size()));
  }
  out.resize(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    Eigen::VectorXd row;
    row_numbers(v, static_cast<std::size_t>(r), where, static_cast<std::size_t>(cols), row);
    out.row(r) = row.transpose();
  }
}

json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v) {
  return json(std::vector<double>(v.begin(), v.end()));
}

json matrix_json(const Eigen::MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) rows.push_back(vector_json(m.row(r).transpose()));
  return rows;
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// One line naming how the model's feature list differs from the expected one; empty if equal.
std::string feature_difference(const std::vector<std::string>& model,
                               const std::vector<std::string>& expected) {
  if (model == expected) return "";
  const std::unordered_set<std::string> in_model(model.begin(), model.end());
  const std::unordered_set<std::string> in_expected(expected.begin(), expected.end());
  std::vector<std::string> missing, extra;
  for (const std::string& n : expected) {
    if (!in_model.count(n)) missing.push_back(n);
  }
  for (const std::string& n : model) {
    if (!in_expected.count(n)) extra.push_back(n);
  }
  std::string out = "feature list differs from the expected one:";
  if (!missing.empty()) out += " missing " + name_list(missing) + ";";
  if (!extra.empty()) out += " extra " + name_list(extra) + ";";
  if (missing.empty() && extra.empty()) {
    std::size_t i = 0;
    while (i < model.size() && i < expected.size() && model[i] == expected[i]) ++i;
    if (model.size() != expected.size()) {
      out += " same names, different counts (" + std::to_string(model.size()) + " vs " +
             std::to_string(expected.size()) + ");";
    } else {
      out += " same names out of order (position " + std::to_string(i) + ": model has '" + model[i] +
             "', expected '" + expected[i] + "');";
    }
  }
  out.pop_back();
  return out;
}

}  // namespace

json TriggerModel::to_json() const {
  const trigger::Network& net = *network_;
  json blocks = json::array();
  for (const trigger::DenseBlock& b : net.blocks) {
    blocks.push_back({{"weight", matrix_json(b.weight)},
                      {"bias", vector_json(b.bias)},
                      {"gamma", vector_json(b.gamma)},
                      {"beta", vector_json(b.beta)},
                      {"running_mean", vector_json(b.running_mean)},
                      {"running_var", vector_json(b.running_var)}});
  }
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["feature_names"] = feature_names_;
  j["confidence_feature"] = confidence_feature_;
  j["scaler"] = {{"mean", scaler_mean_}, {"scale", scaler_scale_}};
  j["threshold"] = threshold_;
  j["shape"] = {{"layers", net.blocks.size()}, {"hidden", net.hidden()}, {"dropout", net.dropout}};
  j["loss"] = loss_;
  j["training"] = training_;
  j["network"] = {{"batch_norm_eps", net.bn_eps},
                  {"blocks", blocks},
                  {"p_head", {{"weight", vector_json(net.p_weight.transpose())}, {"bias", net.p_bias}}},
                  {"u_head", {{"weight", vector_json(net.u_weight.transpose())}, {"bias", net.u_bias}}},
                  {"w1", net.w1},
                  {"w2", net.w2},
                  {"epsilon", net.epsilon}};
  j["metadata"] = metadata_;
  return j;
}

Result<TriggerModel> TriggerModel::from_json(const json& j,
                                             const std::vector<std::string>* expected_features) {
  try {
    if (!j.is_object()) fail("", "expected a JSON object");
    const json& format = field(j, "format", "");
    if (!format.is_string() || format.get<std::string>() != kFormat) {
      fail("format", "expected \"" + std::string(kFormat) + "\", got " + format.dump());
    }
    const json& version = field(j, "version", "");
    if (!version.is_number_integer() || version.get<int>() != kVersion) {
      fail("version", "unsupported version " + version.dump() + " (this build reads version 1)");
    }
    TriggerModel m;
    const json& names = field(j, "feature_names", "");
    if (!names.is_array() || names.empty()) fail("feature_names", "expected a non-empty array of names");
    std::unordered_set<std::string> seen;
    for (const json& n : names) {
      if (!n.is_string()) fail("feature_names", "expected strings");
      m.feature_names_.push_back(n.get<std::string>());
      if (!seen.insert(m.feature_names_.back()).second)
        fail("feature_names", "'" + n.get<std::string>() + "' twice");
    }
    if (expected_features != nullptr) {
      const std::string diff = feature_difference(m.feature_names_, *expected_features);
      if (!diff.empty()) fail("feature_names", diff);
    }
    const std::size_t d = m.feature_names_.size();
    m.confidence_feature_ = text(j, "confidence_feature", "");
    m.confidence_index_ = d;
    for (std::size_t i = 0; i < d; ++i) {
      if (m.feature_names_[i] == m.confidence_feature_) m.confidence_index_ = i;
    }
    if (m.confidence_index_ == d)
      fail("confidence_feature", "'" + m.confidence_feature_ + "' is not a feature");
    const json& scaler = field(j, "scaler", "");
    numbers(scaler, "mean", "scaler", d, m.scaler_mean_);
    numbers(scaler, "scale", "scaler", d, m.scaler_scale_);
    for (double s : m.scaler_scale_) {
      if (!(s > 0.0) || !std::isfinite(s)) fail("scaler.scale", "values must be positive");
    }
    m.threshold_ = number(j, "threshold", "");
    m.loss_ = text(j, "loss", "");
    if (const auto t = j.find("training"); t != j.end()) m.training_ = *t;
    if (const auto md = j.find("metadata"); md != j.end()) m.metadata_ = *md;

    const json& shape = field(j, "shape", "");
    const int layers = integer(shape, "layers", "shape");
    const int hidden = integer(shape, "hidden", "shape");
    if (layers < 1 || hidden < 1) fail("shape", "layers and hidden must be positive");
    trigger::Network net;
    net.dropout = number(shape, "dropout", "shape");
    const json& jn = field(j, "network", "");
    net.bn_eps = number(jn, "batch_norm_eps", "network");
    const json& blocks = field(jn, "blocks", "network");
    if (!blocks.is_array() || blocks.size() != static_cast<std::size_t>(layers)) {
      fail("network.blocks", "expected " + std::to_string(layers) + " blocks (shape.layers)");
    }
    Eigen::Index fan_in = static_cast<Eigen::Index>(d);
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const std::string path = "network.blocks[" + std::to_string(k) + "]";
      trigger::DenseBlock b;
      matrix(blocks[k], "weight", path, hidden, fan_in, b.weight);
      numbers(blocks[k], "bias", path, hidden, b.bias);
      numbers(blocks[k], "gamma", path, hidden, b.gamma);
      numbers(blocks[k], "beta", path, hidden, b.beta);
      numbers(blocks[k], "running_mean", path, hidden, b.running_mean);
      numbers(blocks[k], "running_var", path, hidden, b.running_var);
      net.blocks.push_back(std::move(b));
      fan_in = hidden;
    }
    const json& ph = field(jn, "p_head", "network");
    numbers(ph, "weight", "network.p_head", hidden, net.p_weight);
    net.p_bias = number(ph, "bias", "network.p_head");
    const json& uh = field(jn, "u_head", "network");
    numbers(uh, "weight", "network.u_head", hidden, net.u_weight);
    net.u_bias = number(uh, "bias", "network.u_head");
    net.w1 = number(jn, "w1", "network");
    net.w2 = number(jn, "w2", "network");
    net.epsilon = number(jn, "epsilon", "network");
    m.network_ = std::make_shared<const trigger::Network>(std::move(net));
    return m;
  } catch (const FormatError& e) {
    return Error{std::string("trigger model: ") + e.what()};
  } catch (const json::exception& e) {
    return Error{std::string("trigger model: ") + e.what()};
  }
}

Result<Ok> TriggerModel::save(const std::string& path) const {
  if (auto ok = write_output_file(path, to_json().dump() + '\n'); !ok)
    return Error{"trigger model: " + path + ": " + ok.error().message};
  return Ok{};
}

Result<TriggerModel> TriggerModel::load(const std::string& path,
                                        const std::vector<std::string>* expected_features) {
  const Result<std::string> text = read_input_file(path);
  if (!text) return Error{"trigger model: " + path + ": " + text.error().message};
  const json j = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{"trigger model: " + path + " is not valid JSON"};
  Result<TriggerModel> m = from_json(j, expected_features);
  if (!m) return Error{m.error().message + " (in " + path + ")"};
  return m;
}

}  // namespace parley
