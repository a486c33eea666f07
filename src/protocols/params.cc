// ProtocolParams accessors. A wrong-kind access is a bug in a protocol (the config layer
// validated every value against the protocol's ParamSpecs), so it throws.
#include <stdexcept>

#include "parley/protocol.h"

namespace parley {

const ParamValue& ProtocolParams::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("protocol parameter not declared: " + name);
  return it->second;
}

std::int64_t ProtocolParams::integer(const std::string& name) const {
  const auto& v = at(name);
  if (auto p = std::get_if<std::int64_t>(&v)) return *p;
  throw std::logic_error("protocol parameter is not an integer: " + name);
}

double ProtocolParams::real(const std::string& name) const {
  const auto& v = at(name);
  if (auto p = std::get_if<double>(&v)) return *p;
  if (auto p = std::get_if<std::int64_t>(&v)) return static_cast<double>(*p);
  throw std::logic_error("protocol parameter is not a number: " + name);
}

bool ProtocolParams::flag(const std::string& name) const {
  const auto& v = at(name);
  if (auto p = std::get_if<bool>(&v)) return *p;
  throw std::logic_error("protocol parameter is not a boolean: " + name);
}

const std::string& ProtocolParams::text(const std::string& name) const {
  const auto& v = at(name);
  if (auto p = std::get_if<std::string>(&v)) return *p;
  throw std::logic_error("protocol parameter is not a string: " + name);
}

}  // namespace parley
