"""com.microsoft GroupQueryAttention cases: prefill and decode, every attribute and optional
input ONNX Runtime 1.30's CPU kernel supports, GQA ratios 1, 2 and 4, odd sequence lengths."""
import numpy as np

import dtypes as D
import refs
from build import rand, rng, rope_cache, single

F, H16 = D.FLOAT, D.FLOAT16
SLOTS = ["query", "key", "value", "past_key", "past_value", "seqlens_k",
         "total_sequence_length", "cos_cache", "sin_cache", "position_ids", "attention_bias",
         "head_sink"]


def gqa_case(tag, B, S, N, KV, H, P=0, T=None, seqlens=None, packed=False, t=F, rot_half=0,
             pos=False, bias=None, sink=False, shared_kv=False, ort=True, note="",
             tiled_padding=False, **attrs):
    name = "gqa_" + tag
    T = T if T is not None else P + S
    seqlens = seqlens if seqlens is not None else [T - 1] * B
    ins = {}
    width = (N + 2 * KV) * H if packed else N * H
    ins["query"] = (t, rand(name, t, (B, S, width), salt="q"))
    if not packed:
        skv = 0 if shared_kv else S
        ins["key"] = (t, rand(name, t, (B, skv, KV * H), salt="k"))
        ins["value"] = (t, rand(name, t, (B, skv, KV * H), salt="v"))
    if P:
        ins["past_key"] = (t, rand(name, t, (B, KV, P, H), salt="pk"))
        ins["past_value"] = (t, rand(name, t, (B, KV, P, H), salt="pv"))
    ins["seqlens_k"] = (D.INT32, np.array(seqlens, np.int32))
    ins["total_sequence_length"] = (D.INT32, np.array(T, np.int32))
    if rot_half:
        cos, sin = rope_cache(name, t, max(T, P) + 4, rot_half)
        ins["cos_cache"], ins["sin_cache"] = (t, cos), (t, sin)
        attrs.setdefault("do_rotary", 1)
    if pos:
        base = np.arange(S)[None, :] + np.array(seqlens)[:, None] + 1 - S
        if S == T:
            base = np.arange(S)[None, :].repeat(B, 0) + 2
        ins["position_ids"] = (D.INT64, base.astype(np.int64))
    if bias:
        ins["attention_bias"] = (t, rand(name, t, (bias[0], bias[1], S, T), -2, 1, salt="b"))
    if sink:
        ins["head_sink"] = (t, rand(name, t, (N,), -1, 2, salt="s"))
    outs = [("output", t), ("present_key", t), ("present_value", t)]
    if attrs.get("qk_output"):
        outs.append(("output_qk", t))

    def ref(**a):
        f = lambda n: None if n not in a else np.asarray(a[n], np.float64)  # noqa: E731
        y, pk, pv, qk = refs.gqa(f("query"), f("key"), f("value"), f("past_key"),
                                 f("past_value"), a["seqlens_k"], T, f("cos_cache"),
                                 f("sin_cache"), a.get("position_ids"), f("attention_bias"),
                                 f("head_sink"), num_heads=N, kv_num_heads=KV,
                                 tiled_padding=tiled_padding, **attrs)
        return [y, pk, pv] + ([qk] if attrs.get("qk_output") else [])
    return single(name, "GroupQueryAttention", SLOTS, ins, outs,
                  dict(num_heads=N, kv_num_heads=KV, **attrs), ref=ref, ort=ort, note=note)


def cases():
    c = gqa_case
    return [
        # Prefill: odd lengths, head sizes 8 and 64, GQA ratios 1, 2, 4.
        c("prefill_s7_h8_r2", 1, 7, 4, 2, 8),
        c("prefill_s33_h64_r4", 1, 33, 8, 2, 64),
        c("prefill_s1_h8_r1", 2, 1, 2, 2, 8),
        c("prefill_right_padded", 3, 7, 4, 1, 16, seqlens=[6, 3, 0]),
        c("prefill_packed_qkv", 2, 5, 4, 2, 8, packed=True),
        # Decode: past cache of the exact length, a buffer longer than the total, ragged batch.
        c("decode_s1_p33_h64_r4", 1, 1, 8, 2, 64, P=33),
        c("decode_ragged", 3, 1, 4, 2, 8, P=9, T=10, seqlens=[9, 4, 0]),
        c("decode_buffer", 2, 1, 4, 1, 8, P=12, T=8, seqlens=[7, 5]),
        c("decode_packed_qkv", 2, 1, 2, 1, 16, P=6, packed=True),
        c("subsequent_prompt", 1, 3, 4, 2, 8, P=5),
        c("subsequent_prompt_buffer", 1, 4, 4, 2, 8, P=16, T=9),
        # Attributes.
        c("scale", 1, 5, 2, 1, 8, scale=0.3),
        c("softcap", 1, 7, 4, 2, 8, softcap=1.5),
        c("softcap_decode", 1, 1, 4, 2, 8, P=6, softcap=2.0),
        c("local_window", 1, 9, 2, 1, 8, local_window_size=3),
        c("local_window_padded", 2, 6, 2, 1, 8, seqlens=[5, 2], local_window_size=2,
          tiled_padding=True),
        c("local_window_padded_softcap", 2, 6, 2, 1, 8, seqlens=[5, 2], local_window_size=2,
          softcap=30.0),
        c("local_window_decode", 1, 1, 2, 1, 8, P=10, local_window_size=4),
        c("smooth_softmax", 1, 6, 4, 2, 8, smooth_softmax=1),
        c("head_sink", 1, 6, 4, 2, 8, sink=True),
        c("head_sink_decode", 2, 1, 4, 4, 8, P=5, sink=True),
        c("attention_bias", 2, 5, 4, 2, 8, bias=(2, 4)),
        c("attention_bias_broadcast", 2, 5, 4, 2, 8, bias=(1, 1)),
        c("attention_bias_decode", 1, 1, 4, 2, 8, P=6, bias=(1, 4)),
        c("qk_output_before_softmax", 1, 5, 2, 1, 8, qk_output=1, softcap=2.5),
        c("qk_output_after_softmax", 1, 5, 2, 1, 8, qk_output=2),
        c("qk_output_decode_window", 1, 1, 2, 1, 8, P=6, qk_output=1, local_window_size=3),
        c("non_causal", 1, 6, 4, 2, 8, causal=0),
        c("non_causal_padded", 2, 5, 2, 1, 8, causal=0, seqlens=[4, 2]),
        # Rotary: half and interleaved, partial rotation, default and given positions.
        c("rotary", 2, 5, 4, 2, 16, rot_half=8),
        c("rotary_interleaved", 1, 5, 4, 2, 16, rot_half=8, rotary_interleaved=1),
        c("rotary_partial", 1, 4, 2, 1, 32, rot_half=8),
        c("rotary_decode", 2, 1, 4, 2, 16, P=7, seqlens=[7, 3], rot_half=8),
        c("rotary_position_ids_prompt", 2, 4, 2, 1, 16, rot_half=8, pos=True),
        c("rotary_position_ids_decode", 2, 1, 2, 1, 16, P=5, rot_half=8, pos=True),
        c("rotary_packed_qkv", 1, 3, 2, 1, 16, rot_half=8, packed=True),
        # Shared KV: key / value of length 0 read another layer's cache.
        c("shared_kv_decode", 1, 1, 4, 2, 8, P=7, T=7, shared_kv=True),
        # float16 (ONNX Runtime's CPU kernel runs it in f16 with f32 softmax).
        c("float16_prefill", 1, 7, 4, 2, 16, t=H16),
        c("float16_decode", 2, 1, 4, 1, 16, P=9, t=H16, softcap=3.0),
        c("float16_rotary", 1, 5, 4, 2, 16, t=H16, rot_half=8),
        # Head size 31: the operator text sets no multiple; ORT's CPU kernel needs 8.
        c("head_size_31", 1, 5, 4, 2, 31, ort=False,
          note="ORT's CPU kernel requires head_size % 8 == 0, which ContribOperators.md does "
               "not state; numpy reference"),
    ]
