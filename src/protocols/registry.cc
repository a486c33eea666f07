// The one table of protocols. Adding a protocol: its file, one line here, its test, its row
// in docs/protocols.md.
#include "protocols/protocols.h"

namespace parley {

const std::vector<ProtocolInfo>& protocol_registry() {
  static const std::vector<ProtocolInfo> registry = {
      single_protocol(),
      self_consistency_protocol(),
      debate_protocol(),
      ni_protocol(),
      wr_protocol(),
      cr_protocol(),
      ra_cr_protocol(),
      mad_protocol(),
      group_debate_protocol(),
      self_critique_protocol(),
      down_protocol(),
      imad_protocol(),
      svr_mad_protocol(),
      sid_et_protocol(),
      s2_mad_protocol(),
      maci_protocol(),
  };
  return registry;
}

const ProtocolInfo* find_protocol(std::string_view name) {
  for (const auto& info : protocol_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::size_t protocol_debaters(const ProtocolInfo& info, const ProtocolParams& params) {
  if (info.debaters) return info.debaters(params);
  return static_cast<std::size_t>(params.integer("agents"));
}

}  // namespace parley
