"""ONNX Attention (opsets 23, 24, 25) and RotaryEmbedding-23 cases beyond the opset 18-23
suite's: odd sizes, GQA ratios, causal with past (bottom-right), masks of every broadcast rank,
shorter masks and nonpad_kv_seqlen (24), windows (25), every qk_matmul_output_mode, types."""
import numpy as np

import case as case_mod
import dtypes as D
import refs
from build import rand, rng, single

case_mod.IR_FOR_OPSET.update({24: 10, 25: 10})
F, H16, BF, F64 = D.FLOAT, D.FLOAT16, D.BFLOAT16, D.DOUBLE
SLOTS = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]


def onnx_case(tag, B, Sq, Hq, Hkv, Dh, Skv=None, Dv=None, three_d=False, t=F, vt=None, P=0,
              mask=None, nonpad=None, opset=23, qk_mode=None, present=None, ort=True, note="",
              tol=None, **attrs):
    name = "attention_%d_%s" % (opset, tag)
    Skv = Sq if Skv is None else Skv
    Dv = Dh if Dv is None else Dv
    vt = vt or t
    if three_d:
        attrs["q_num_heads"], attrs["kv_num_heads"] = Hq, Hkv
        qs, ks, vs = (B, Sq, Hq * Dh), (B, Skv, Hkv * Dh), (B, Skv, Hkv * Dv)
    else:
        qs, ks, vs = (B, Hq, Sq, Dh), (B, Hkv, Skv, Dh), (B, Hkv, Skv, Dv)
    ins = {"Q": (t, rand(name, t, qs, salt="q")), "K": (t, rand(name, t, ks, salt="k")),
           "V": (vt, rand(name, vt, vs, salt="v"))}
    T = P + Skv
    if mask is not None:
        mt, shape = mask
        shape = tuple(T if d == "T" else d for d in shape)
        if mt == D.BOOL:
            m = rng(name, "m").random(shape) > 0.3
            m[..., 0] = True
        else:
            m = rand(name, mt, shape, -2, 0.5, salt="m")
        ins["attn_mask"] = (mt, m)
    if P:
        ins["past_key"] = (t, rand(name, t, (B, Hkv, P, Dh), salt="pk"))
        ins["past_value"] = (vt, rand(name, vt, (B, Hkv, P, Dv), salt="pv"))
    if nonpad is not None:
        ins["nonpad_kv_seqlen"] = (D.INT64, np.array(nonpad, np.int64))
    present = P > 0 if present is None else present
    outs = [("Y", t)] + ([("present_key", t), ("present_value", vt)] if present else
                         [("", t), ("", vt)])
    if qk_mode is not None:
        attrs["qk_matmul_output_mode"] = qk_mode
        outs.append(("qk_matmul_output", t))

    def ref(**a):
        f = lambda n: None if n not in a else np.asarray(a[n], np.float64)  # noqa: E731
        m = a.get("attn_mask")
        m = None if m is None else (m if m.dtype == bool else np.asarray(m, np.float64))
        y, pk, pv, qk = refs.attention_onnx(f("Q"), f("K"), f("V"), m, f("past_key"),
                                            f("past_value"), a.get("nonpad_kv_seqlen"),
                                            opset=opset, **attrs)
        return [y] + ([pk, pv] if present else []) + ([qk] if qk_mode is not None else [])
    return single(name, "Attention", SLOTS, ins, outs, attrs, ref=ref, domain="", ort=ort,
                  note=note, tol=tol, version=opset)


def cases():
    c = onnx_case
    out = [
        c("prefill_s7_h8_r2", 1, 7, 4, 2, 8, is_causal=1),
        c("prefill_s33_h64_r4_3d", 1, 33, 8, 2, 64, three_d=True, is_causal=1),
        c("h31_cross", 2, 5, 2, 2, 31, Skv=7),
        c("v_head_size", 2, 3, 4, 1, 8, Skv=6, Dv=12),
        c("decode_past_causal", 2, 1, 4, 2, 16, P=9, is_causal=1),
        c("prefill_past_causal_3d", 1, 5, 4, 2, 8, P=6, three_d=True, is_causal=1),
        c("mask_bool_2d", 2, 4, 2, 2, 8, Skv=6, mask=(D.BOOL, (4, "T"))),
        c("mask_bool_4d_broadcast", 2, 4, 2, 2, 8, Skv=6, mask=(D.BOOL, (2, 1, 4, "T"))),
        c("mask_float_3d_heads", 1, 3, 4, 2, 8, Skv=5, mask=(F, (4, 3, "T"))),
        c("mask_float_1d", 2, 3, 2, 1, 8, Skv=5, mask=(F, ("T",))),
        c("mask_float_past_causal", 1, 2, 2, 2, 8, P=4, mask=(F, (2, "T")), is_causal=1),
        c("mask_all_false_row", 1, 3, 2, 2, 8, Skv=4, mask=(D.BOOL, (3, "T")), is_causal=1),
        c("softcap_mask", 1, 5, 2, 1, 8, softcap=1.5, mask=(F, (5, "T"))),
        c("scale_gqa4", 1, 4, 8, 2, 8, Skv=6, scale=0.4),
        c("qk_mode0_causal", 1, 4, 2, 2, 8, qk_mode=0, is_causal=1),
        c("qk_mode1_softcap_past", 1, 2, 2, 1, 8, P=3, qk_mode=1, softcap=2.0),
        c("qk_mode3_mask", 1, 3, 2, 2, 8, Skv=5, qk_mode=3, mask=(D.BOOL, (3, "T"))),
        c("float16_gqa", 1, 5, 4, 2, 16, t=H16, is_causal=1),
        c("float16_past", 1, 1, 2, 2, 16, P=7, t=H16, is_causal=1),
        c("bfloat16_mask", 1, 4, 2, 1, 8, t=BF, mask=(D.BOOL, (4, "T"))),
        c("double_past", 1, 2, 2, 2, 8, P=3, t=F64),
        c("v_float16_qk_float", 1, 3, 2, 2, 8, vt=H16, ort=False,
          note="V of another type than Q / K (T2); ORT has no such kernel; numpy reference"),
        # Opset 24: nonpad_kv_seqlen (external cache) and masks shorter than the keys.
        c("nonpad", 2, 1, 4, 2, 8, Skv=9, nonpad=[9, 4], opset=24, is_causal=1),
        c("nonpad_prefill", 2, 3, 2, 2, 8, Skv=8, nonpad=[6, 2], opset=24, is_causal=1),
        c("nonpad_mask", 2, 2, 2, 1, 8, Skv=6, nonpad=[5, 3], opset=24,
          mask=(D.BOOL, (2, "T"))),
        c("nonpad_qk_mode2", 1, 2, 2, 2, 8, Skv=6, nonpad=[4], opset=24, qk_mode=2,
          note="spec: mode 2 holds -inf at disallowed keys (padding included); ORT writes the "
               "lowest float there"),
        c("short_mask", 1, 3, 2, 2, 8, Skv=6, mask=(F, (3, 4)), opset=24),
        # Opset 25: left / right windows.
        c("window_left_causal", 1, 7, 2, 1, 8, left_window_size=2, is_causal=1, opset=25,
          ort=False, note="ORT 1.30 has no Attention-25 (window attributes); numpy reference"),
        c("window_both", 1, 6, 2, 2, 8, left_window_size=2, right_window_size=1, opset=25,
          ort=False, note="ORT 1.30 has no Attention-25 (window attributes); numpy reference"),
    ]
    return out


ROPE_SLOTS = ["X", "cos_cache", "sin_cache", "position_ids"]
MS_ROPE_SLOTS = ["input", "position_ids", "cos_cache", "sin_cache"]


def rope_case(tag, shape, heads=0, rdim=0, interleaved=0, t=F, pos="2d", ms=False, **attrs):
    """ONNX RotaryEmbedding-23 (ms=False) or com.microsoft RotaryEmbedding (ms=True)."""
    name = ("rotary_ms_" if ms else "rotary_23_") + tag
    B = shape[0]
    S = shape[2] if len(shape) == 4 else shape[1]
    H = shape[3] if len(shape) == 4 else (shape[2] // heads if heads else 0)
    if ms and not H:
        H = 2 * attrs.pop("cache_half")
    half = (rdim or H) // 2
    r = rng(name, "p")
    ins = {"X" if not ms else "input": (t, rand(name, t, shape, -2, 2, salt="x"))}
    if pos == "2d":
        P = S + 5
        ins["position_ids"] = (D.INT64, r.integers(0, P, (B, S)).astype(np.int64))
    elif pos == "1d":
        P = S + 5
        ins["position_ids"] = (D.INT64, np.array([3], np.int64))
    else:
        P = None
    ang = (np.arange(P)[:, None] if P else (np.arange(B * S).reshape(B, S, 1) + 1)) * \
        (0.3 + np.arange(half) * 0.11)
    ins["cos_cache"] = (t, D.round_to(t, np.cos(ang)))
    ins["sin_cache"] = (t, D.round_to(t, np.sin(ang)))
    if heads:
        attrs["num_heads"] = heads
    if rdim:
        attrs["rotary_embedding_dim"] = rdim
    if interleaved:
        attrs["interleaved"] = 1
    out = [("Y" if not ms else "output", t)]

    def ref(**a):
        x = np.asarray(a["X" if not ms else "input"], np.float64)
        c, s = np.asarray(a["cos_cache"], np.float64), np.asarray(a["sin_cache"], np.float64)
        p = a.get("position_ids")
        if not ms and p is None:  # caches per token: (B, S, R/2)
            y = np.empty_like(x)
            for b in range(B):
                xb = x[b:b + 1]
                idx = np.arange(S)
                y[b:b + 1] = refs.rotary_ms(xb, idx[None, :], c[b], s[b], interleaved, rdim,
                                            heads)
            return [y]
        return [refs.rotary_ms(x, p, c, s, interleaved, rdim, heads)]
    slots = MS_ROPE_SLOTS if ms else ROPE_SLOTS
    return single(name, "RotaryEmbedding", slots, ins, out, attrs, ref=ref,
                  domain="com.microsoft" if ms else "", version=1 if ms else 23)


def rotary_cases():
    r = rope_case
    return [
        r("bnsh_s7_h64", (1, 3, 7, 64)),
        r("bsnh_s33_h8", (2, 33, 4 * 8), heads=4),
        r("partial_odd_head", (1, 2, 5, 30), rdim=14),
        r("interleaved_partial_3d", (1, 7, 3 * 16), heads=3, rdim=8, interleaved=1),
        r("per_token_cache", (2, 2, 5, 8), pos=None),
        r("float16", (1, 2, 7, 16), t=H16, interleaved=1),
        r("bsnh_s7", (2, 7, 4 * 16), heads=4, ms=True),
        r("no_num_heads", (2, 5, 3 * 8), ms=True, cache_half=4),
        r("scalar_position", (1, 6, 2 * 8), heads=2, pos="1d", ms=True),
        r("bnsh", (2, 3, 5, 16), ms=True),
        r("partial_interleaved", (1, 4, 2 * 32), heads=2, rdim=16, interleaved=1, ms=True),
        r("packed_batching_scale", (2, 3, 2 * 8), heads=2, ms=True, is_packed_batching=1,
          scale=2.0),
        r("float16", (1, 5, 2 * 16), heads=2, t=H16, ms=True),
    ]
