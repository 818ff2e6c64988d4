// The inputs and outputs of a decoder in onnxruntime-genai form (tools/genai_model.h; what the
// model builder writes): which session input is input_ids, attention_mask and each layer's
// past key / value, which output is logits and each layer's present, and the feeds of one step
// of greedy generation. `vtensor generate` drives its loop with it.
//
// KV cache between steps: step k's present.{i}.key / .value Values are fed unchanged as step
// k+1's past_key_values.{i}.* (no copy here). GroupQueryAttention hands out presents with
// spare capacity and appends the next step's rows in place when its past is the present it
// handed out last (docs/genai.md "KV cache"), so a decode step copies no past rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/runtime/session.h"

namespace vt::cli {

class DecoderIo {
 public:
  // Errors: InvalidArgument naming the model and the input or output when one of input_ids,
  // attention_mask, logits is missing, an input is not one of those or a past_key_values.{i}.key
  // / .value (a decoder needing position_ids or other inputs is not this form), a past has no
  // present.{i}.* output, a past is not f32 rank 4 with static dims 1 and 3 (kv heads, head
  // size), or logits' last dim is not static and `vocab` is 0.
  static Expected<DecoderIo> Create(const Session& s, int64_t vocab = 0);

  int64_t vocab() const { return vocab_; }
  int64_t layers() const { return static_cast<int64_t>(past_.size()); }
  int64_t kv_heads() const { return kv_heads_; }
  int64_t head_size() const { return head_size_; }

  // Feeds of the first step (batch 1): input_ids [1, P], attention_mask of P ones, empty pasts
  // [1, kv_heads, 0, head_size]. Errors: InvalidArgument for an empty prompt or an id outside
  // [0, vocab).
  Expected<std::vector<Value>> PrefillFeeds(const std::vector<int64_t>& prompt) const;
  // Feeds of a decode step: input_ids [[id]], attention_mask of `total` ones (tokens so far,
  // this one included) and the previous step's presents (from `outputs`) as pasts.
  std::vector<Value> DecodeFeeds(int64_t id, int64_t total, const std::vector<Value>& outputs) const;
  // Greedy choice: the first index of the largest logit in the last row of outputs' logits.
  // Errors: InvalidArgument when logits is not f32 [1, S, vocab].
  Expected<int64_t> Argmax(const std::vector<Value>& outputs) const;

 private:
  struct Past {
    size_t input, output;  // session input index, output index of its present
  };
  size_t n_inputs_ = 0, ids_ = 0, mask_ = 0, logits_ = 0;
  std::vector<Past> past_;
  int64_t vocab_ = 0, kv_heads_ = 0, head_size_ = 0;
};

// The deterministic prompt of `vtensor generate` and bench/ort's generate loop:
// id_i = Mix64(seed * 0x9E3779B97F4A7C15 + (i + 1) * 0xD1B54A32D192ED03) mod vocab
// (synth::Mix64), i = 0..len-1.
std::vector<int64_t> PromptIds(uint64_t seed, int64_t len, int64_t vocab);

// Bytes of the weights one decode step reads: every initializer of the session's graph except
// Gather data (embedding tables: one row per token) and GroupQueryAttention's cos / sin caches
// (one row per position), each at the payload size of its compiled forms that hit, else at its
// source size (a form packed at load is counted as its source).
int64_t WeightBytesPerToken(const Session& s);

}  // namespace vt::cli
