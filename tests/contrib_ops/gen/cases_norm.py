"""SkipLayerNormalization, SkipSimplifiedLayerNormalization, EmbedLayerNormalization,
GatedRMSNorm and the default-domain LayerNormalization / SimplifiedLayerNormalization of opsets
before 17: cases and their numpy references (float64, rounded to the output types)."""
import numpy as np

import dtypes as D
from contrib_case import ms_case, rand, f64
from mk import rng as seeded_rng

F, H, BF, DB = D.FLOAT, D.FLOAT16, D.BFLOAT16, D.DOUBLE


def skip_norm_ref(eps, simplified):
    def ref(a):
        x = f64(a["x"])
        s = x + np.broadcast_to(f64(a["skip"]), x.shape)
        if "bias" in a:
            s = s + f64(a["bias"])
        mean = np.zeros(s.shape[:-1] + (1,)) if simplified else s.mean(-1, keepdims=True)
        var = ((s - mean) ** 2).mean(-1, keepdims=True)
        inv = 1 / np.sqrt(var + eps)
        y = (s - mean) * inv * f64(a["gamma"])
        if "beta" in a:
            y = y + f64(a["beta"])
        return [y, mean.astype(np.float32), inv.astype(np.float32), s]
    return ref


def skip_norm(name, t, shape, skip_shape=None, beta=True, bias=True, outs=(1, 1, 1, 1), eps=None,
              simplified=False, offset=0.0):
    op = "SkipSimplifiedLayerNormalization" if simplified else "SkipLayerNormalization"
    h = shape[-1]
    x = rand(name, t, shape, -2 + offset, 2 + offset)
    ins = [("x", t, x), ("skip", t, rand(name, t, skip_shape or shape, salt="skip")),
           ("gamma", t, rand(name, t, (h,), 0.5, 1.5, salt="gamma"))]
    if not simplified:
        ins.append(("beta", t, rand(name, t, (h,), -1, 1, salt="beta")) if beta else None)
    ins.append(("bias", t, rand(name, t, (h,), -1, 1, salt="bias")) if bias else None)
    names = [("y", t), ("mean", F), ("inv_std_var", F), ("input_skip_bias_sum", t)]
    outputs = [n if on else None for n, on in zip(names, outs)]
    attrs = {} if eps is None else {"epsilon": eps}
    return ms_case(name, op, ins, outputs, attrs, ref=skip_norm_ref(1e-12 if eps is None else eps, simplified),
                   promote=t in (H, BF))


def skip_norms():
    out = []
    for simplified in (False, True):
        p = "skip_simplified_layer_norm_" if simplified else "skip_layer_norm_"
        for h in (1, 7, 33, 257):
            out.append(skip_norm(p + "h%d_all" % h, F, (2, 3, h), simplified=simplified))
        out.append(skip_norm(p + "no_bias", F, (2, 5, 17), beta=False, bias=False, outs=(1, 0, 0, 0),
                             simplified=simplified))
        out.append(skip_norm(p + "sum_only", F, (1, 4, 33), bias=False, outs=(1, 0, 0, 1), simplified=simplified))
        out.append(skip_norm(p + "stats_only", F, (2, 2, 7), beta=False, outs=(1, 1, 1, 0), simplified=simplified))
        out.append(skip_norm(p + "skip_batch1", F, (3, 4, 16), skip_shape=(1, 4, 16), simplified=simplified))
        out.append(skip_norm(p + "skip_2d", F, (3, 4, 16), skip_shape=(4, 16), simplified=simplified))
        out.append(skip_norm(p + "input_2d", F, (6, 33), simplified=simplified))
        out.append(skip_norm(p + "epsilon", F, (2, 3, 8), eps=0.25, simplified=simplified))
        out.append(skip_norm(p + "offset", F, (2, 3, 64), offset=20.0, simplified=simplified))
        out.append(skip_norm(p + "float16", H, (2, 3, 33), simplified=simplified))
        out.append(skip_norm(p + "bfloat16", BF, (2, 3, 33), simplified=simplified))
        out.append(skip_norm(p + "double", DB, (2, 3, 7), simplified=simplified))
    # Only the beta of SkipLayerNormalization (input 3) and only its bias (input 4).
    out.append(skip_norm("skip_layer_norm_beta_only", F, (2, 3, 9), bias=False))
    out.append(skip_norm("skip_layer_norm_bias_only", F, (2, 3, 9), beta=False))
    return out


def first_zero(mask):
    out = []
    for row in mask:
        z = np.nonzero(row == 0)[0]
        out.append(z[0] if len(z) else len(row))
    return np.array(out, dtype=np.int32)


def embed_ref(eps):
    def ref(a):
        ids = a["input_ids"]
        b, s = ids.shape
        pos = a.get("position_ids")
        if pos is None:
            pos = np.broadcast_to(np.arange(s), (b, s))
        else:
            pos = np.broadcast_to(pos, (b, s))
        e = f64(a["word_embedding"])[ids] + f64(a["position_embedding"])[pos]
        if "segment_embedding" in a:
            seg = a.get("segment_ids", np.zeros_like(ids))
            e = e + f64(a["segment_embedding"])[seg]
        mean = e.mean(-1, keepdims=True)
        var = ((e - mean) ** 2).mean(-1, keepdims=True)
        y = (e - mean) / np.sqrt(var + eps) * f64(a["gamma"]) + f64(a["beta"])
        mi = first_zero(a["mask"]) if "mask" in a else np.zeros(b, np.int32)
        return [y, mi, e]
    return ref


def embed(name, t, b, s, h, segments=True, seg_ids=True, mask="right", pos_ids=None, outs=(1, 1, 1),
          eps=None, attrs=None, vocab=23, positions=None, note=""):
    rng = seeded_rng(name + "/ids")
    ids = rng.integers(0, vocab, (b, s)).astype(np.int32)
    positions = positions or s + 3
    ins = [("input_ids", D.INT32, ids)]
    ins.append(("segment_ids", D.INT32, rng.integers(0, 2, (b, s)).astype(np.int32))
               if segments and seg_ids else None)
    ins.append(("word_embedding", t, rand(name, t, (vocab, h), -1, 1, salt="w")))
    ins.append(("position_embedding", t, rand(name, t, (positions, h), -1, 1, salt="p")))
    ins.append(("segment_embedding", t, rand(name, t, (2, h), -1, 1, salt="s")) if segments else None)
    ins.append(("gamma", t, rand(name, t, (h,), 0.5, 1.5, salt="g")))
    ins.append(("beta", t, rand(name, t, (h,), -1, 1, salt="b")))
    if mask is None:
        ins.append(None)
    else:
        m = np.ones((b, s), np.int32)
        for i in range(b):
            if mask == "right":
                m[i, s - 1 - i % s:] = 0 if i % 2 else 1
            else:  # holes: a 0 before a 1
                m[i, 1 + i % max(s - 2, 1)] = 0
        ins.append(("mask", D.INT32, m))
    if pos_ids is not None:
        pb = b if pos_ids == "batch" else 1
        ins.append(("position_ids", D.INT32, rng.integers(0, positions, (pb, s)).astype(np.int32)))
    names = [("output", t), ("mask_index", D.INT32), ("embedding_sum", t)]
    outputs = [n if on else None for n, on in zip(names, outs)]
    at = dict(attrs or {})
    if eps is not None:
        at["epsilon"] = eps
    return ms_case(name, "EmbedLayerNormalization", ins, outputs, at,
                   ref=embed_ref(1e-12 if eps is None else eps), promote=t in (H, BF), note=note)


def embeds():
    out = []
    for h in (1, 7, 33, 257):
        out.append(embed("embed_layer_norm_h%d" % h, F, 2, 5, h))
    out.append(embed("embed_layer_norm_no_segment", F, 2, 6, 16, segments=False))
    out.append(embed("embed_layer_norm_segment_embedding_without_ids", F, 2, 4, 8, seg_ids=False))
    out.append(embed("embed_layer_norm_position_ids", F, 3, 4, 16, pos_ids="batch"))
    out.append(embed("embed_layer_norm_position_ids_broadcast", F, 3, 4, 16, pos_ids="one"))
    out.append(embed("embed_layer_norm_no_mask", F, 2, 3, 8, mask=None))
    out.append(embed("embed_layer_norm_output_only", F, 2, 3, 8, outs=(1, 0, 0), attrs={"mask_index_type": 0}))
    out.append(embed("embed_layer_norm_epsilon", F, 2, 3, 8, eps=0.1))
    out.append(embed("embed_layer_norm_float16", H, 2, 5, 33))
    out.append(embed("embed_layer_norm_mask_with_holes", F, 3, 6, 8, mask="holes",
                     note="spec: mask_index is the position of the first 0 in mask; ORT's CPU "
                          "kernel counts the 1s instead (the same only for right-padded masks)"))
    return out


def gated_rms_ref(eps):
    def ref(a):
        x, s, g = f64(a["X"]), f64(a["scale"]), f64(a["gate"])
        c = s.size
        xr = x.reshape(x.shape[:-1] + (-1, c))
        inv = 1 / np.sqrt((xr ** 2).mean(-1, keepdims=True) + eps)
        y = (xr * inv * s).reshape(x.shape)
        return [y * g / (1 + np.exp(-g))]
    return ref


def gated_rms():
    out = []
    for tag, t, shape, c, eps in [("heads2", F, (2, 3, 16), 8, None), ("one_head", F, (3, 33), 33, None),
                                  ("c1", F, (2, 5), 1, None), ("heads4_257", F, (1, 2, 4 * 257), 257, None),
                                  ("epsilon", F, (2, 8), 4, 0.5), ("float16", H, (2, 3, 16), 8, None),
                                  ("bfloat16", BF, (2, 3, 16), 8, None)]:
        n = "gated_rms_norm_" + tag
        ins = [("X", t, rand(n, t, shape, -3, 3)), ("scale", t, rand(n, t, (c,), 0.5, 1.5, salt="s")),
               ("gate", t, rand(n, t, shape, -4, 4, salt="g"))]
        out.append(ms_case(n, "GatedRMSNorm", ins, [("Y", t)], {} if eps is None else {"epsilon": eps},
                           ref=gated_rms_ref(1e-5 if eps is None else eps), promote=t in (H, BF)))
    return out


def layer_norm_ref(axis, eps, simplified):
    def ref(a):
        x = f64(a["X"])
        ax = tuple(range(axis % x.ndim, x.ndim))
        mean = np.zeros(x.shape[:axis % x.ndim] + (1,) * len(ax)) if simplified else x.mean(ax, keepdims=True)
        var = ((x - mean) ** 2).mean(ax, keepdims=True)
        inv = 1 / np.sqrt(var + eps)
        y = (x - mean) * inv * f64(a["Scale"])
        if "B" in a:
            y = y + f64(a["B"])
        return [y, mean.astype(np.float32), inv.astype(np.float32)] if not simplified else [y, inv.astype(np.float32)]
    return ref


def legacy_layer_norms():
    out = []
    for tag, opset, shape, axis, eps in [("opset16_last_axis", 16, (2, 3, 33), -1, None),
                                         ("opset14_axis1", 14, (2, 3, 5), 1, 1e-3)]:
        n = "layer_norm_default_domain_" + tag
        norm = shape[axis % len(shape):]
        ins = [("X", F, rand(n, F, shape)), ("Scale", F, rand(n, F, norm, 0.5, 1.5, salt="s")),
               ("B", F, rand(n, F, norm, -1, 1, salt="b"))]
        attrs = {"axis": axis}
        if eps is not None:
            attrs["epsilon"] = eps
        out.append(ms_case(n, "LayerNormalization", ins, [("Y", F), ("Mean", F), ("InvStdDev", F)], attrs,
                           ref=layer_norm_ref(axis, 1e-5 if eps is None else eps, False), opset=opset, domain=""))
    n = "simplified_layer_norm_default_domain_opset16"
    ins = [("X", F, rand(n, F, (2, 4, 17))), ("Scale", F, rand(n, F, (17,), 0.5, 1.5, salt="s"))]
    out.append(ms_case(n, "SimplifiedLayerNormalization", ins, [("Y", F), ("InvStdDev", F)], {"axis": -1},
                       ref=layer_norm_ref(-1, 1e-5, True), opset=16, domain=""))
    return out


def all_cases():
    return skip_norms() + embeds() + gated_rms() + legacy_layer_norms()
