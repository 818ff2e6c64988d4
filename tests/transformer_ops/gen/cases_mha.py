"""com.microsoft MultiHeadAttention cases: self and cross attention, packed QKV and packed KV,
K / V in BNSH, bias, every key_padding_mask form, attention_bias, past / present (also with
past_sequence_length buffer sharing), unidirectional, scale, mask_filter_value, qk output."""
import numpy as np

import dtypes as D
import refs
from build import rand, rng, single

F, H16 = D.FLOAT, D.FLOAT16
SLOTS = ["query", "key", "value", "bias", "key_padding_mask", "attention_bias", "past_key",
         "past_value", "past_sequence_length"]
ORT_NO_PACKED = "ORT 1.30's CPU kernel does not run packed %s (not implemented for CPU); numpy"


def mha_case(tag, B, S, N, H, L=None, Hv=None, form="bsnh", t=F, bias=False, kpm=None, ab=None,
             P=0, psl=None, qk=False, present=True, ort=True, note="", tol=None, **attrs):
    name = "mha_" + tag
    L = S if L is None else L
    Hv = H if Hv is None else Hv
    hid = N * H
    ins = {}
    if form == "packed_qkv":
        ins["query"] = (t, rand(name, t, (B, S, N, 3, H), salt="q"))
    else:
        ins["query"] = (t, rand(name, t, (B, S, hid), salt="q"))
        if form == "packed_kv":
            ins["key"] = (t, rand(name, t, (B, L, N, 2, H), salt="k"))
        elif form == "bnsh":
            ins["key"] = (t, rand(name, t, (B, N, L, H), salt="k"))
            ins["value"] = (t, rand(name, t, (B, N, L, Hv), salt="v"))
        else:
            ins["key"] = (t, rand(name, t, (B, L, hid), salt="k"))
            ins["value"] = (t, rand(name, t, (B, L, N * Hv), salt="v"))
    if bias:
        ins["bias"] = (t, rand(name, t, (2 * hid + N * Hv,), salt="b"))
    past = psl if psl is not None else P
    T = past + L
    if kpm is not None:
        ins["key_padding_mask"] = (D.INT32, kpm(B, S, T).astype(np.int32))
    if ab:
        ins["attention_bias"] = (t, rand(name, t, (ab[0], ab[1], S, T), -2, 1, salt="a"))
    if P:
        ins["past_key"] = (t, rand(name, t, (B, N, P, H), salt="pk"))
        ins["past_value"] = (t, rand(name, t, (B, N, P, Hv), salt="pv"))
    if psl is not None:
        ins["past_sequence_length"] = (D.INT32, np.array([psl], np.int32))
    outs = [("output", t)]
    outs += [("present_key", t), ("present_value", t)] if present else [("", t), ("", t)]
    if qk:
        outs.append(("qk", t))

    def ref(**a):
        f = lambda n: None if n not in a else np.asarray(a[n], np.float64)  # noqa: E731
        y, pk, pv, s = refs.mha(f("query"), f("key"), f("value"), f("bias"),
                                a.get("key_padding_mask"), f("attention_bias"), f("past_key"),
                                f("past_value"), a.get("past_sequence_length"), num_heads=N,
                                **attrs)
        return [y] + ([pk, pv] if present else []) + ([s] if qk else [])
    return single(name, "MultiHeadAttention", SLOTS, ins, outs, dict(num_heads=N, **attrs),
                  ref=ref, ort=ort, note=note, tol=tol)


def lengths(*v):
    return lambda B, S, T: np.array(v)


def raw2d(seed):
    def make(B, S, T):
        m = (np.random.default_rng(seed).random((B, T)) > 0.35)
        m[:, 0] = True
        return m
    return make


def raw3d(seed):
    def make(B, S, T):
        m = (np.random.default_rng(seed).random((B, S, T)) > 0.35)
        m[:, :, 0] = True
        return m
    return make


def cases():
    c = mha_case
    return [
        c("self_s7_h8", 2, 7, 2, 8),
        c("self_s33_h64", 1, 33, 2, 64),
        c("self_h31", 1, 7, 3, 31),
        c("cross_l5", 2, 3, 2, 8, L=5),
        c("cross_v_head_size", 2, 4, 2, 8, L=6, Hv=12),
        c("decode_s1", 2, 1, 4, 16, P=9),
        c("bias", 2, 5, 2, 8, L=6, bias=True),
        c("bias_cross_hv", 1, 4, 2, 8, L=3, Hv=4, bias=True),
        c("kv_bnsh", 2, 4, 2, 8, L=6, form="bnsh"),
        c("kv_bnsh_bias", 2, 4, 2, 8, L=6, form="bnsh", bias=True),
        c("packed_kv", 2, 4, 2, 8, L=5, form="packed_kv", ort=False, note=ORT_NO_PACKED % "KV"),
        c("packed_kv_bias", 1, 3, 2, 8, L=4, form="packed_kv", bias=True, ort=False,
          note=ORT_NO_PACKED % "KV"),
        c("packed_qkv", 2, 5, 2, 8, form="packed_qkv", ort=False, note=ORT_NO_PACKED % "QKV"),
        c("packed_qkv_bias_causal", 1, 6, 2, 8, form="packed_qkv", bias=True, unidirectional=1,
          ort=False, note=ORT_NO_PACKED % "QKV"),
        c("key_padding_lengths", 3, 4, 2, 8, L=6, kpm=lengths(6, 2, 4)),
        c("key_padding_3b_plus_2", 2, 4, 2, 8, L=5, kpm=lengths(3, 5, 0, 4, 8, 0, 3, 8)),
        c("key_padding_2d", 2, 4, 2, 8, L=6, kpm=raw2d(1)),
        c("key_padding_3d", 2, 4, 2, 8, L=6, kpm=raw3d(2)),
        c("key_padding_2d_past", 2, 1, 2, 8, P=5, kpm=raw2d(3), unidirectional=1),
        # A row whose keys are all masked: softmax of score - 10000 in f32, whose rounding
        # (an ulp of 10000 is 1e-3) shows at 1e-4 against the float64 reference.
        c("key_padding_all_masked", 2, 3, 2, 8, L=4, kpm=lengths(0, 4), tol=(1e-3, 1e-3)),
        c("mask_filter_value", 2, 3, 2, 8, L=5, kpm=raw2d(4), mask_filter_value=-3.0),
        c("attention_bias", 2, 4, 2, 8, L=5, ab=(2, 2)),
        c("attention_bias_broadcast", 2, 4, 2, 8, L=5, ab=(1, 1)),
        c("past_present", 2, 3, 2, 8, P=4),
        c("past_unidirectional", 1, 3, 2, 8, P=4, unidirectional=1),
        c("unidirectional", 2, 7, 2, 8, unidirectional=1),
        c("unidirectional_padding_left", 2, 5, 2, 8, kpm=raw2d(5), unidirectional=1),
        c("scale", 1, 4, 2, 8, L=6, scale=0.25),
        c("qk_output", 2, 4, 2, 8, L=5, kpm=lengths(3, 5), ab=(1, 2), qk=True),
        c("qk_output_causal", 1, 4, 2, 8, unidirectional=1, qk=True, present=False),
        c("past_sequence_length", 2, 1, 2, 8, P=8, psl=5, unidirectional=1, ort=False,
          note="ORT 1.30's CPU kernel ignores past_sequence_length (it attends all buffer rows "
               "and returns a buffer-sized present); the text's buffer sharing is followed"),
        c("float16", 2, 5, 2, 16, L=6, t=H16, bias=True, kpm=lengths(4, 6)),
        c("float16_decode", 1, 1, 2, 16, P=7, t=H16, unidirectional=1),
    ]
