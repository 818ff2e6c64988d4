"""com.microsoft Attention cases: fused QKV weights (and qkv_hidden_sizes), bias, every
mask_index form, unidirectional, past / present (also shared buffer), attention_bias, scale,
mask_filter_value."""
import numpy as np

import dtypes as D
import refs
from build import rand, single

F, H16 = D.FLOAT, D.FLOAT16
SLOTS = ["input", "weights", "bias", "mask_index", "past", "attention_bias",
         "past_sequence_length"]


def attn_case(tag, B, S, In, N, H, Hv=None, t=F, bias=True, mask=None, P=0, psl=None, ab=None,
              present=True, ort=True, note="", tol=(1e-3, 2e-5), **attrs):
    name = "attention_ms_" + tag
    Hv = H if Hv is None else Hv
    total = 2 * N * H + N * Hv
    if Hv != H:
        attrs["qkv_hidden_sizes"] = [N * H, N * H, N * Hv]
    ins = {"input": (t, rand(name, t, (B, S, In), salt="x")),
           "weights": (t, rand(name, t, (In, total), -0.5, 0.5, salt="w"))}
    if bias:
        ins["bias"] = (t, rand(name, t, (total,), salt="b"))
    past = psl if psl is not None else P
    T = past + S
    if mask is not None:
        ins["mask_index"] = (D.INT32, mask(B, S, T).astype(np.int32))
    if P:
        ins["past"] = (t, rand(name, t, (2, B, N, P, H), salt="p"))
    if ab:
        ins["attention_bias"] = (t, rand(name, t, (ab[0], ab[1], S, T), -2, 1, salt="a"))
    if psl is not None:
        ins["past_sequence_length"] = (D.INT32, np.array([psl], np.int32))
        attrs["past_present_share_buffer"] = 1
    outs = [("output", t)] + ([("present", t)] if present else [])

    def ref(**a):
        f = lambda n: None if n not in a else np.asarray(a[n], np.float64)  # noqa: E731
        y, pr = refs.attention_ms(f("input"), f("weights"), f("bias"), a.get("mask_index"),
                                  f("past"), f("attention_bias"), a.get("past_sequence_length"),
                                  num_heads=N, **attrs)
        return [y] + ([pr] if present else [])
    return single(name, "Attention", SLOTS, ins, outs, dict(num_heads=N, **attrs), ref=ref,
                  ort=ort, note=note, tol=tol)


def const(*v):
    return lambda B, S, T: np.array(v)


def raw(seed, dims):
    def make(B, S, T):
        shape = {2: (B, T), 3: (B, S, T)}[dims]
        m = np.random.default_rng(seed).random(shape) > 0.35
        m[..., 0] = True
        return m
    return make


def megatron(M):
    return lambda B, S, T: np.tril(np.ones((B, 1, M, M))).astype(np.int32)


ORT_CPU = "ORT 1.30's CPU kernel rejects %s; numpy reference from the operator text"


def cases():
    c = attn_case
    return [
        c("s7", 2, 7, 12, 2, 8),
        c("s33_h64", 1, 33, 40, 2, 64),
        c("h31", 1, 5, 16, 3, 31),
        c("qkv_hidden_sizes", 2, 4, 12, 2, 8, Hv=5, present=False),
        c("no_bias", 2, 4, 12, 2, 8, bias=False, ort=False,
          note="ORT 1.30's CPU kernel crashes without the optional bias; numpy reference"),
        c("mask_end_positions", 3, 5, 12, 2, 8, mask=const(5, 2, 4)),
        c("mask_end_start", 2, 5, 12, 2, 8, mask=const(5, 4, 1, 2)),
        c("mask_3b_plus_2", 2, 4, 12, 2, 8, mask=const(3, 4, 0, 4, 8, 0, 3, 7)),
        c("mask_2d", 2, 5, 12, 2, 8, mask=raw(1, 2)),
        c("mask_3d", 2, 5, 12, 2, 8, mask=raw(2, 3)),
        c("mask_4d_megatron", 2, 4, 12, 2, 8, mask=megatron(6), unidirectional=1, ort=False,
          note=ORT_CPU % "the 4-D Megatron mask"),
        c("mask_4d_megatron_past", 1, 1, 12, 2, 8, P=3, mask=megatron(8), ort=False,
          note=ORT_CPU % "the 4-D Megatron mask"),
        c("unidirectional", 2, 6, 12, 2, 8, unidirectional=1),
        # Left padding under the causal mask: the first rows see only masked keys (softmax of
        # score - 10000 in f32; an ulp of 10000 is 1e-3).
        c("unidirectional_left_padding", 2, 5, 12, 2, 8, mask=const(5, 5, 0, 2),
          unidirectional=1, tol=(2e-3, 1e-3)),
        c("past_decode", 2, 1, 12, 2, 8, P=6, unidirectional=1),
        c("past_prefill_mask_2d", 1, 3, 12, 2, 8, P=4, mask=raw(3, 2), unidirectional=1),
        c("past_attention_bias", 2, 1, 12, 2, 8, P=4, ab=(2, 2), ort=False,
          note=ORT_CPU % "past together with attention_bias"),
        c("attention_bias", 2, 4, 12, 2, 8, ab=(1, 2)),
        c("scale", 1, 4, 12, 2, 8, scale=0.2),
        c("mask_filter_value", 2, 4, 12, 2, 8, mask=raw(4, 2), mask_filter_value=-4.0),
        c("share_buffer", 2, 1, 12, 2, 8, P=8, psl=5, unidirectional=1, ort=False,
          note=ORT_CPU % "past_present_share_buffer (past_sequence_length never reaches it)"),
        c("float16", 2, 4, 16, 2, 16, t=H16, mask=const(4, 3)),
    ]
