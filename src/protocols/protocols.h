#pragma once
// Registry entries of the built-in protocols, one per protocol file; registry.cc lists them.

#include "parley/protocol.h"

namespace parley {

ProtocolInfo single_protocol();            // single.cc
ProtocolInfo self_consistency_protocol();  // self_consistency.cc
ProtocolInfo debate_protocol();            // debate.cc
ProtocolInfo ni_protocol();                // ni.cc
ProtocolInfo wr_protocol();                // wr.cc
ProtocolInfo cr_protocol();                // cr.cc
ProtocolInfo ra_cr_protocol();             // ra_cr.cc
ProtocolInfo mad_protocol();               // mad.cc
ProtocolInfo group_debate_protocol();      // group_debate.cc
ProtocolInfo self_critique_protocol();     // self_critique.cc
ProtocolInfo down_protocol();              // down.cc
ProtocolInfo imad_protocol();              // imad.cc
ProtocolInfo svr_mad_protocol();           // svr_mad.cc
ProtocolInfo sid_et_protocol();            // sid_et.cc
ProtocolInfo s2_mad_protocol();            // s2_mad.cc
ProtocolInfo maci_protocol();             // maci.cc

}  // namespace parley
