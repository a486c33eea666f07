#pragma once
// Hand-made transcripts for metric tests: calls numbered as Debate records them (a call's id is
// its position) and re-asks linked to the call whose turn they repeat.

#include <utility>
#include <vector>

#include "parley/transcript.h"

namespace parley::testing {

inline std::vector<MessageRecord> numbered(std::vector<MessageRecord> calls) {
  for (std::size_t i = 0; i < calls.size(); ++i) calls[i].id = static_cast<int>(i);
  return calls;
}

// `call` as a re-ask of the turn opened by call `call_id`.
inline MessageRecord reask_of(int call_id, MessageRecord call) {
  call.repeats = call_id;
  return call;
}

}  // namespace parley::testing
