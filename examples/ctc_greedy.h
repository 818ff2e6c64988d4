// CTC greedy decoding for PaddleOCR recognition models (PP-OCR "rec" heads).
//
// The model emits, per time step, a probability over C classes laid out the PaddleOCR way:
// class 0 is the CTC blank, class k in [1, K] is line k-1 of the key file (K lines), and
// class K+1 is a space. Greedy decoding takes the argmax per step, collapses runs of the same
// class and drops blanks (Graves et al. 2006, "best path decoding").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt::ocr {

// Reads a key file: one UTF-8 character (or string) per line; a final newline is optional and
// a trailing '\r' is dropped. Errors: NotFound / IoError, InvalidArgument when empty.
Expected<std::vector<std::string>> LoadCtcKeys(const std::string& path);

struct CtcResult {
  std::string text;
  // Mean of the winning probabilities of the emitted characters (0 when none); PaddleOCR
  // reports the same number as its recognition score.
  float confidence = 0.0f;
};

// Decodes `probs`, `steps` x `classes` row-major. Errors: InvalidArgument when `classes` is not
// keys.size() + 2 (the key file does not belong to the model) or when a size is not positive.
Expected<CtcResult> CtcGreedyDecode(const float* probs, int64_t steps, int64_t classes,
                                    const std::vector<std::string>& keys);

}  // namespace vt::ocr
