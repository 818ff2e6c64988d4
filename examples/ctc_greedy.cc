#include "ctc_greedy.h"

#include "vtensor/base/file.h"

namespace vt::ocr {

Expected<std::vector<std::string>> LoadCtcKeys(const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  std::vector<std::string> keys;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    keys.push_back(std::move(line));
    start = end + 1;
  }
  if (keys.empty()) return InvalidArgument(path + ": key file is empty");
  return keys;
}

Expected<CtcResult> CtcGreedyDecode(const float* probs, int64_t steps, int64_t classes,
                                    const std::vector<std::string>& keys) {
  if (steps <= 0 || classes <= 0)
    return InvalidArgument("CTC decode: need a positive number of steps and classes, got " +
                           std::to_string(steps) + " x " + std::to_string(classes));
  const int64_t space = static_cast<int64_t>(keys.size()) + 1;
  if (classes != space + 1)
    return InvalidArgument("CTC decode: model has " + std::to_string(classes) +
                           " classes but the key file has " + std::to_string(keys.size()) +
                           " keys (expected keys + 2: blank and space)");
  CtcResult r;
  double score_sum = 0.0;
  int emitted = 0;
  int64_t prev = -1;
  for (int64_t t = 0; t < steps; ++t) {
    const float* row = probs + t * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (row[c] > row[best]) best = c;
    // A class repeated over consecutive steps is one character; a blank in between separates
    // genuinely doubled letters ("ll" in "Hello").
    if (best != 0 && best != prev) {
      r.text += best == space ? std::string(" ") : keys[best - 1];
      score_sum += row[best];
      ++emitted;
    }
    prev = best;
  }
  r.confidence = emitted ? static_cast<float>(score_sum / emitted) : 0.0f;
  return r;
}

}  // namespace vt::ocr
