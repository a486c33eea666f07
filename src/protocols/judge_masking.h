#pragma once
// Identity masking shared by the judge's modes (judge.cc, crit_judge.cc): agent names inside a
// judged text are replaced, whole words only, by what the judge may know them as. Internal to
// src/protocols. Pure functions.

#include <functional>
#include <string>
#include <vector>

#include "parley/transcript.h"

namespace parley {

// `text` with every whole-word occurrence of each of `names` replaced by label_of(name); longer
// names first, so that "a1#2" is not half-replaced by "a1". Repeated names count once.
std::string mask_names(const std::string& text, std::vector<std::string> names,
                       const std::function<std::string(const std::string&)>& label_of);

// The agents that have answered in the debate so far (its answer roles), in message order.
std::vector<std::string> debaters_of(const Transcript& transcript);

}  // namespace parley
