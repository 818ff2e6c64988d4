"""Opset 23: Attention, RotaryEmbedding, RMSNormalization (and GroupNormalization-21)."""
import numpy as np

import dtypes as D
from mk import Case, rand, rng, f64
from cases_18 import group_norm_ref

F, BF, H = D.FLOAT, D.BFLOAT16, D.FLOAT16


def group_norm_21():
    out = []
    for tag, t, shape, groups, eps, stash in [("basic", F, (2, 4, 3, 3), 2, None, None),
                                              ("epsilon_one_group", F, (1, 6, 5), 1, 1e-2, None),
                                              ("groups_eq_channels", D.DOUBLE, (2, 3, 4), 3, None, None),
                                              ("float16_stash_float", H, (2, 4, 5), 2, None, 1),
                                              ("bfloat16", BF, (1, 6, 2, 3), 3, None, None)]:
        n = "group_normalization_21_" + tag
        C = shape[1]
        attrs = {"num_groups": groups}
        if eps:
            attrs["epsilon"] = eps
        if stash:
            attrs["stash_type"] = stash
        out.append(Case(n, "GroupNormalization", 21,
                        [("X", t, rand(n, t, shape)), ("scale", t, rand(n, t, (C,), salt="s")),
                         ("bias", t, rand(n, t, (C,), salt="b"))], [("Y", t)], attrs=attrs,
                        promote=t in (H, BF),
                        ref=lambda x, s, b, g=groups, e=eps or 1e-5: [
                            group_norm_ref(f64(x), f64(s), f64(b), g, e, per_channel=True)]))
    return out


def rms_norm():
    out = []
    for tag, t, vt, shape, sshape, axis, eps in [("last_axis", F, F, (2, 3, 7), (7,), None, None),
                                                 ("axis_1", F, F, (2, 3, 5), (3, 5), 1, 1e-3),
                                                 ("negative_axis_broadcast_scale", F, F, (3, 4, 5),
                                                  (1, 5), -2, None),
                                                 ("double", D.DOUBLE, D.DOUBLE, (4, 6), (6,), None, None),
                                                 ("float16", H, H, (3, 8), (8,), None, None),
                                                 ("bfloat16", BF, BF, (2, 9), (9,), None, None),
                                                 ("float16_x_float_scale", H, F, (2, 5), (5,), None,
                                                  None)]:
        n = "rms_normalization_23_" + tag
        attrs = {}
        if axis is not None:
            attrs["axis"] = axis
        if eps:
            attrs["epsilon"] = eps
        ax = -1 if axis is None else axis

        def ref(x, s, ax=ax, e=eps or 1e-5):
            x = f64(x)
            axes = tuple(range(ax % x.ndim, x.ndim))
            return [x / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + e) * f64(s)]
        out.append(Case(n, "RMSNormalization", 23, [("X", t, rand(n, t, shape)),
                                                   ("scale", vt, rand(n, vt, sshape, salt="s"))],
                        [("Y", vt)], attrs=attrs or None, ref=ref, promote=t != F and t == vt))
    return out


def rope_ref(x, cos, sin, pos=None, interleaved=0, rot_dim=0, num_heads=0):
    shape = x.shape
    if x.ndim == 4:
        x = x.transpose(0, 2, 1, 3)
    else:
        x = x.reshape(shape[0], shape[1], num_heads, -1)
    hd = x.shape[3]
    rd = rot_dim or hd
    xr, xn = x[..., :rd], x[..., rd:]
    if pos is not None:
        cos, sin = cos[pos], sin[pos]
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = np.split(xr, 2, axis=-1)
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if interleaved:
        xr = np.stack([real, imag], axis=-1).reshape(xr.shape)
    else:
        xr = np.concatenate([real, imag], axis=-1)
    y = np.concatenate([xr, xn], axis=-1)
    return y.reshape(shape) if len(shape) == 3 else y.transpose(0, 2, 1, 3)


def rotary_embedding():
    out = []
    specs = [("4d_position_ids", F, (2, 3, 4, 8), True, 0, 0, 0),
             ("4d_interleaved", F, (1, 2, 5, 6), True, 1, 0, 0),
             ("3d_num_heads", F, (2, 3, 12), True, 0, 0, 3),
             ("partial_rotation", F, (1, 2, 3, 10), True, 0, 6, 0),
             ("partial_interleaved_3d", F, (1, 4, 16), True, 1, 4, 2),
             ("no_position_ids", F, (2, 2, 3, 6), False, 0, 0, 0),
             ("float16", H, (1, 2, 3, 8), True, 0, 0, 0),
             ("bfloat16", BF, (1, 2, 3, 8), True, 1, 0, 0)]
    for tag, t, xs, has_pos, inter, rot, nh in specs:
        n = "rotary_embedding_23_" + tag
        B = xs[0]
        S = xs[2] if len(xs) == 4 else xs[1]
        hd = xs[3] if len(xs) == 4 else xs[2] // nh
        half = (rot or hd) // 2
        r = rng(n)
        if has_pos:
            max_pos = S + 4
            ang = np.arange(max_pos)[:, None] * (0.3 + np.arange(half)[None, :] * 0.17)
            pos = r.integers(0, max_pos, size=(B, S)).astype(np.int64)
        else:
            ang = (np.arange(B * S).reshape(B, S, 1) + 1) * (0.3 + np.arange(half) * 0.17)
            pos = None
        cos = D.round_to(t, np.cos(ang))
        sin = D.round_to(t, np.sin(ang))
        ins = [("X", t, rand(n, t, xs)), ("cos_cache", t, cos), ("sin_cache", t, sin)]
        if pos is not None:
            ins.append(("position_ids", D.INT64, pos))
        attrs = {}
        if inter:
            attrs["interleaved"] = 1
        if rot:
            attrs["rotary_embedding_dim"] = rot
        if nh:
            attrs["num_heads"] = nh
        out.append(Case(n, "RotaryEmbedding", 23, ins, [("Y", t)], attrs=attrs or None,
                        promote=t != F,
                        ref=lambda x, c, s, p=None, i=inter, rd=rot, h=nh: [
                            rope_ref(f64(x), f64(c), f64(s), p, i, rd, h)]))
    return out


def attention_ref(q, k, v, mask=None, past_k=None, past_v=None, is_causal=0, q_heads=0,
                  kv_heads=0, scale=None, softcap=0.0, mode=None):
    three_d = q.ndim == 3
    if three_d:
        B, Sq, _ = q.shape
        q = q.reshape(B, Sq, q_heads, -1).transpose(0, 2, 1, 3)
        k = k.reshape(B, k.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
        v = v.reshape(B, v.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
    if past_k is not None:
        k = np.concatenate([past_k, k], axis=2)
        v = np.concatenate([past_v, v], axis=2)
    present_k, present_v = k, v
    hq, hkv = q.shape[1], k.shape[1]
    kk = np.repeat(k, hq // hkv, axis=1)
    vv = np.repeat(v, hq // hkv, axis=1)
    d = q.shape[-1]
    s = scale if scale is not None else 1 / np.sqrt(d)
    qk = (q @ kk.transpose(0, 1, 3, 2)) * s
    out_qk = {0: qk}
    if softcap:
        qk = softcap * np.tanh(qk / softcap)
    out_qk[1] = qk
    Sq, T = qk.shape[2], qk.shape[3]
    bias = np.zeros((Sq, T))
    if is_causal:
        past = 0 if past_k is None else past_k.shape[2]
        bias = np.where(np.arange(T)[None, :] <= np.arange(Sq)[:, None] + past, 0, -np.inf)
    if mask is not None:
        mb = np.where(mask, 0, -np.inf) if mask.dtype == bool else mask
        bias = bias + mb
    qk = qk + bias
    out_qk[2] = qk
    p = np.exp(qk - qk.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    out_qk[3] = p
    y = p @ vv
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return y, present_k, present_v, out_qk.get(mode if mode is not None else 0)


def attention():
    out = []
    # (tag, type, Q, K, V shapes, heads (q, kv) for 3D, mask kind, past len, attrs)
    specs = [("4d_basic", F, (2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5), None, None, 0, {}),
             ("4d_causal", F, (1, 2, 5, 4), (1, 2, 5, 4), (1, 2, 5, 4), None, None, 0,
              {"is_causal": 1}),
             ("4d_gqa", F, (1, 4, 3, 6), (1, 2, 3, 6), (1, 2, 3, 6), None, None, 0, {}),
             ("4d_mqa_scale", F, (2, 3, 2, 4), (2, 1, 5, 4), (2, 1, 5, 4), None, None, 0,
              {"scale": 0.3}),
             ("4d_bool_mask", F, (1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), None, "bool", 0, {}),
             ("4d_float_mask", F, (2, 1, 3, 4), (2, 1, 4, 4), (2, 1, 4, 4), None, "float", 0, {}),
             ("4d_past_kv", F, (1, 2, 2, 4), (1, 2, 2, 4), (1, 2, 2, 4), None, None, 3, {}),
             ("4d_past_kv_causal_mask", F, (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), None,
              "float", 2, {"is_causal": 1}),
             ("4d_softcap", F, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, None, 0,
              {"softcap": 2.0}),
             ("3d", F, (2, 3, 12), (2, 4, 12), (2, 4, 9), (3, 3), None, 0, {}),
             ("3d_gqa_causal", F, (1, 4, 16), (1, 4, 8), (1, 4, 8), (4, 2), None, 0,
              {"is_causal": 1}),
             ("qk_matmul_output_mode0", F, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, "float",
              0, {"qk_matmul_output_mode": 0}),
             ("qk_matmul_output_mode1", F, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, None, 0,
              {"qk_matmul_output_mode": 1, "softcap": 3.0}),
             ("qk_matmul_output_mode2", F, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, "bool",
              0, {"qk_matmul_output_mode": 2}),
             ("qk_matmul_output_mode3", F, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, "float",
              0, {"qk_matmul_output_mode": 3}),
             ("softmax_precision_float", H, (1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4), None, None,
              0, {"softmax_precision": D.FLOAT}),
             ("float16", H, (1, 2, 3, 8), (1, 2, 5, 8), (1, 2, 5, 8), None, None, 0, {}),
             ("bfloat16", BF, (1, 2, 3, 8), (1, 2, 4, 8), (1, 2, 4, 8), None, None, 0, {}),
             ("double", D.DOUBLE, (1, 1, 3, 4), (1, 1, 3, 4), (1, 1, 3, 4), None, None, 0, {})]
    for tag, t, qs, ks, vs, heads, mask, past, attrs in specs:
        n = "attention_23_" + tag
        attrs = dict(attrs)
        if heads:
            attrs["q_num_heads"], attrs["kv_num_heads"] = heads
        ins = [("Q", t, rand(n, t, qs, -1, 1, salt="q")), ("K", t, rand(n, t, ks, -1, 1, salt="k")),
               ("V", t, rand(n, t, vs, -1, 1, salt="v"))]
        names = ["Q", "K", "V"]
        if len(qs) == 4:
            Sq, T = qs[2], ks[2] + past
        else:
            Sq, T = qs[1], ks[1] + past
        if mask == "bool":
            m = rng(n + "m").integers(0, 2, size=(Sq, T)).astype(bool)
            m[:, 0] = True  # no fully masked row
            ins.append(("attn_mask", D.BOOL, m))
        elif mask == "float":
            ins.append(("attn_mask", t, rand(n, t, (Sq, T), -2, 0, salt="m")))
        names.append("attn_mask" if mask else "")
        outs = [("Y", t)]
        if past:
            hk = ks[1]
            ins.append(("past_key", t, rand(n, t, (ks[0], hk, past, ks[3]), -1, 1, salt="pk")))
            ins.append(("past_value", t, rand(n, t, (vs[0], hk, past, vs[3]), -1, 1, salt="pv")))
            names += ["past_key", "past_value"]
            outs += [("present_key", t), ("present_value", t)]
        mode = attrs.get("qk_matmul_output_mode")
        node_outs = None
        if mode is not None:
            outs.append(("qk_matmul_output", t))
            node_outs = ["Y", "", "", "qk_matmul_output"] if not past else None
        while names and names[-1] == "":
            names.pop()

        def ref(*a, hm=mask is not None, hp=past > 0, at=attrs, mode=mode):
            q, k, v = (f64(x) for x in a[:3])
            i = 3
            m = None
            if hm:
                m = a[3] if a[3].dtype == bool else f64(a[3])
                i = 4
            pk = pv = None
            if hp:
                pk, pv = f64(a[i]), f64(a[i + 1])
            y, prk, prv, qk = attention_ref(q, k, v, m, pk, pv, at.get("is_causal", 0),
                                            at.get("q_num_heads", 0), at.get("kv_num_heads", 0),
                                            at.get("scale"), at.get("softcap", 0.0), mode)
            res = [y] + ([prk, prv] if hp else []) + ([qk] if mode is not None else [])
            return res
        c = Case(n, "Attention", 23, ins, outs, attrs=attrs or None, node_inputs=names,
                 ref=ref, promote=t in (H, BF),
                 note="spec: a False in a boolean attn_mask adds -inf to the bias, so "
                      "qk_matmul_output (mode 2) holds -inf there; ORT writes a finite value")
        if node_outs:
            from mk import node
            c.nodes = [node("Attention", names, node_outs, **attrs)]
        out.append(c)
    return out


def all_23():
    return group_norm_21() + rms_norm() + rotary_embedding() + attention()
