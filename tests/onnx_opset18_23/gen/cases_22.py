"""Opset 22: bfloat16 added to the float operators. Each operator version gets a float case
covering its attributes and a bfloat16 case (plus float16 where the op had none before)."""

import numpy as np

import dtypes as D
from mk import Case, rand, rng, f64, i64, tname, unary
from cases_18 import mish
from cases_quant import deform_conv
from cases_20 import grid_sample
from refs22 import roi_align_ref, max_roi_pool_ref, rnn_family_ref, pool_ref

BF, F, H = D.BFLOAT16, D.FLOAT, D.FLOAT16

UNARY = {  # op: (fn, lo, hi, attrs)
    "Acos": (np.arccos, -0.95, 0.95, None), "Acosh": (np.arccosh, 1.05, 4, None),
    "Asin": (np.arcsin, -0.95, 0.95, None), "Asinh": (np.arcsinh, -3, 3, None),
    "Atan": (np.arctan, -3, 3, None), "Atanh": (np.arctanh, -0.9, 0.9, None),
    "Cos": (np.cos, -3, 3, None), "Cosh": (np.cosh, -3, 3, None),
    "Sin": (np.sin, -3, 3, None), "Sinh": (np.sinh, -3, 3, None), "Tan": (np.tan, -1.2, 1.2, None),
    "Elu": (lambda x: np.where(x > 0, x, 0.7 * (np.exp(x) - 1)), -3, 3, {"alpha": 0.7}),
    "HardSigmoid": (lambda x: np.clip(0.3 * x + 0.4, 0, 1), -4, 4, {"alpha": 0.3, "beta": 0.4}),
    "HardSwish": (lambda x: x * np.clip(x / 6 + 0.5, 0, 1), -5, 5, None),
    "Round": (np.round, -4, 4, None),
    "Selu": (lambda x: 1.1 * np.where(x > 0, x, 1.6 * (np.exp(x) - 1)), -3, 3,
             {"alpha": 1.6, "gamma": 1.1}),
    "Softplus": (lambda x: np.log1p(np.exp(x)), -4, 4, None),
    "Softsign": (lambda x: x / (1 + np.abs(x)), -4, 4, None),
    "ThresholdedRelu": (lambda x: np.where(x > 0.6, x, 0), -2, 2, {"alpha": 0.6}),
}


def unary_22():
    out = []
    for op, (fn, lo, hi, attrs) in UNARY.items():
        for t in (F, BF, H):
            n = "%s_22_%s" % (op.lower(), tname(t))
            x_lo, x_hi = lo, hi
            c = unary(n, op, 22, t, (3, 7), fn, attrs=attrs, lo=x_lo, hi=x_hi)
            if op == "Round":  # halves must round to even
                c.inputs[0] = ("X", t, np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.25, -3.75, 0.0, 3.5],
                                                np.float32))
            out.append(c)
    out += mish(22, (F, BF, H, D.DOUBLE))
    return out


def pool_conv():
    out = []
    kinds = {"AveragePool": "avg", "MaxPool": "max", "LpPool": "lp"}

    def P(n, op, t, xs, attrs, extra=(), outs=(("Y", None),), ref=None, note=""):
        if ref is None and op in kinds and len(outs) == 1:
            ref = lambda x, a=attrs, k=kinds[op]: [pool_ref(f64(x), k, **a)]  # noqa: E731
        return Case(n, op, 22, [("X", t, rand(n, t, xs))] + list(extra),
                    [(o, ot or t) for o, ot in outs], attrs=attrs, promote=t in (BF, H), ref=ref,
                    note=note)
    for t in (F, BF):
        tn = tname(t)
        out += [P("averagepool_22_%s" % tn, "AveragePool", t, (1, 2, 7, 6),
                  {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1],
                   "count_include_pad": 1, "ceil_mode": 1}),
                P("averagepool_22_dilations_%s" % tn, "AveragePool", t, (1, 1, 8, 8),
                  {"kernel_shape": [2, 2], "dilations": [2, 3], "auto_pad": "SAME_LOWER"},
                  note="spec: auto_pad SAME_* makes the output ceil(input / stride) = 8x8; ORT "
                       "leaves the dilated kernel out of the SAME padding and returns 7x6"),
                P("maxpool_22_%s" % tn, "MaxPool", t, (1, 2, 7, 7),
                  {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                   "dilations": [1, 2], "ceil_mode": 1}),
                P("maxpool_22_indices_%s" % tn, "MaxPool", t, (1, 2, 5, 6),
                  {"kernel_shape": [2, 2], "strides": [2, 2], "storage_order": 1},
                  outs=(("Y", None), ("Indices", D.INT64))),
                P("lppool_22_%s" % tn, "LpPool", t, (1, 2, 7, 7),
                  {"kernel_shape": [3, 2], "p": 3, "strides": [2, 2], "dilations": [2, 1],
                   "ceil_mode": 1}),
                P("globalaveragepool_22_%s" % tn, "GlobalAveragePool", t, (2, 3, 5, 4), None,
                  ref=lambda x: [f64(x).mean(axis=(2, 3), keepdims=True)]),
                P("globalmaxpool_22_%s" % tn, "GlobalMaxPool", t, (2, 3, 4, 5), None,
                  ref=lambda x: [f64(x).max(axis=(2, 3), keepdims=True)]),
                P("globallppool_22_%s" % tn, "GlobalLpPool", t, (2, 3, 5, 3), {"p": 3},
                  ref=lambda x: [np.sum(np.abs(f64(x)) ** 3, axis=(2, 3), keepdims=True) ** (1 / 3)]),
                P("globallppool_22_default_p_%s" % tn, "GlobalLpPool", t, (1, 2, 7), None,
                  ref=lambda x: [np.sqrt(np.sum(f64(x) ** 2, axis=2, keepdims=True))])]
    for t in (D.INT8, D.UINT8):
        n = "maxpool_22_%s" % tname(t)
        out.append(Case(n, "MaxPool", 22, [("X", t, rand(n, t, (1, 1, 5, 5), -100, 100))],
                        [("Y", t)], attrs={"kernel_shape": [2, 2], "strides": [1, 2]}))
    for t in (F, BF, H):
        tn = tname(t)
        xs, ws = (1, 4, 6, 5), (4, 2, 3, 2)
        n = "conv_22_%s" % tn
        out.append(Case(n, "Conv", 22, [("X", t, rand(n, t, xs)), ("W", t, rand(n, t, ws, salt="w")),
                                        ("B", t, rand(n, t, (4,), salt="b"))], [("Y", t)],
                        attrs={"group": 2, "strides": [2, 1], "pads": [1, 0, 1, 1],
                               "dilations": [1, 2]}, promote=t != F))
        n = "conv_22_auto_pad_%s" % tn
        out.append(Case(n, "Conv", 22, [("X", t, rand(n, t, (1, 2, 5, 5))),
                                        ("W", t, rand(n, t, (3, 2, 3, 3), salt="w"))], [("Y", t)],
                        attrs={"auto_pad": "SAME_UPPER", "strides": [2, 2]}, promote=t != F))
        n = "convtranspose_22_%s" % tn
        out.append(Case(n, "ConvTranspose", 22, [("X", t, rand(n, t, (1, 2, 3, 4))),
                                                 ("W", t, rand(n, t, (2, 3, 3, 2), salt="w")),
                                                 ("B", t, rand(n, t, (3,), salt="b"))], [("Y", t)],
                        attrs={"strides": [2, 3], "pads": [1, 0, 0, 1], "output_padding": [1, 1],
                               "dilations": [1, 1]}, promote=t != F))
        n = "convtranspose_22_output_shape_group_%s" % tn
        out.append(Case(n, "ConvTranspose", 22, [("X", t, rand(n, t, (1, 4, 3, 3))),
                                                 ("W", t, rand(n, t, (4, 1, 3, 3), salt="w"))],
                        [("Y", t)], attrs={"strides": [2, 2], "group": 2, "output_shape": [8, 7]},
                        promote=t != F))
    for t in (F, BF):
        tn = tname(t)
        n = "maxroipool_22_%s" % tn
        rois = np.array([[0, 0, 0, 4, 3], [0, 1, 2, 5, 5], [1, 0.5, 0.2, 3.3, 4.1]], np.float32)
        out.append(Case(n, "MaxRoiPool", 22, [("X", t, rand(n, t, (2, 2, 6, 6))),
                                              ("rois", t, D.round_to(t, rois))], [("Y", t)],
                        attrs={"pooled_shape": [2, 3], "spatial_scale": 1.0}, promote=t != F,
                        ref=lambda x, r: [max_roi_pool_ref(f64(x), f64(r), (2, 3), 1.0)]))
        n = "maxunpool_22_%s" % tn
        x = rand(n, t, (1, 1, 2, 2))
        idx = np.array([[[[0, 3], [9, 14]]]], np.int64)
        out.append(Case(n, "MaxUnpool", 22, [("xT", t, x), ("xI", D.INT64, idx)], [("y", t)],
                        attrs={"kernel_shape": [2, 2], "strides": [2, 2]}, promote=t != F,
                        ref=lambda x, i: [np.bincount(i.reshape(-1), f64(x).reshape(-1), 16)
                                          .reshape(1, 1, 4, 4)]))
        n = "maxunpool_22_output_shape_%s" % tn
        out.append(Case(n, "MaxUnpool", 22, [("xT", t, x), ("xI", D.INT64, idx),
                                             ("output_shape", D.INT64, i64(1, 1, 5, 5))], [("y", t)],
                        attrs={"kernel_shape": [2, 2], "strides": [2, 2]}, promote=t != F,
                        ref=lambda x, i, s: [unpool_into(x, i, (1, 1, 4, 4), s)],
                        note="ONNX's node test test_maxunpool_export_with_output_shape: the "
                             "indices address the unpooled shape inferred from kernel_shape, "
                             "strides and pads (here 4x4), which sits at the start of each axis "
                             "of output_shape (5x5), the rest zero; ORT reads them as flat "
                             "positions in output_shape"))
    return out + max_unpool_more()


def max_unpool_more():
    """MaxUnpool-22 beyond the 2x2 cases: float16 and double, pads with strides, 1-D and 3-D
    spatial axes. The indices are distinct flat positions in the whole unpooled tensor (N and C
    included), each inside its own (n, c) plane."""
    out = []
    for tag, t, xs, attrs in [
            ("float16", H, (1, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}),
            ("double", D.DOUBLE, (1, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}),
            ("pads_strides_float", F, (2, 2, 2, 3),
             {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
            ("1d_float", F, (1, 3, 4), {"kernel_shape": [3], "strides": [2]}),
            ("3d_bfloat16", BF, (1, 1, 2, 2, 2), {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]})]:
        n = "maxunpool_22_%s" % tag
        k, st = attrs["kernel_shape"], attrs["strides"]
        pads = attrs.get("pads", [0] * 2 * len(k))
        sp = [(xs[2 + i] - 1) * st[i] - pads[i] - pads[i + len(k)] + k[i] for i in range(len(k))]
        plane, per = int(np.prod(sp)), int(np.prod(xs[2:]))
        r = rng(n + "i")
        idx = np.concatenate([c * plane + r.choice(plane, per, replace=False)
                              for c in range(xs[0] * xs[1])]).reshape(xs).astype(np.int64)
        shape = tuple(xs[:2]) + tuple(sp)
        out.append(Case(n, "MaxUnpool", 22, [("xT", t, rand(n, t, xs)), ("xI", D.INT64, idx)],
                        [("y", t)], attrs=attrs, promote=t in (BF, H),
                        ref=lambda x, i, shape=shape: [
                            np.bincount(i.reshape(-1), f64(x).reshape(-1), int(np.prod(shape)))
                            .reshape(shape)]))
    return out


def unpool_into(x, idx, unpooled, output_shape):
    """MaxUnpool with output_shape as ONNX's node test reads it: scatter into the inferred
    unpooled shape, then zero-pad each axis at its end up to output_shape."""
    y = np.bincount(idx.reshape(-1), f64(x).reshape(-1), int(np.prod(unpooled))).reshape(unpooled)
    return np.pad(y, [(0, int(o) - u) for o, u in zip(output_shape, unpooled)])


def roi_align():
    out = []
    rois = np.array([[0, 0, 4, 3], [1, 2, 5.5, 5], [0.5, 0.2, 3.3, 4.1]], np.float32)
    for tag, attrs in [("avg_half_pixel", {"output_height": 2, "output_width": 3,
                                           "sampling_ratio": 2, "spatial_scale": 0.5}),
                       ("max_output_half_pixel", {"mode": "max", "output_height": 3,
                                                  "output_width": 2, "sampling_ratio": 1,
                                                  "coordinate_transformation_mode":
                                                  "output_half_pixel"}),
                       ("adaptive_sampling", {"output_height": 2, "output_width": 2})]:
        for t in (F, BF, H):
            n = "roialign_22_%s_%s" % (tag, tname(t))
            out.append(Case(n, "RoiAlign", 22, [("X", t, rand(n, t, (2, 2, 6, 7))),
                                                ("rois", t, D.round_to(t, rois)),
                                                ("batch_indices", D.INT64, i64(0, 1, 1))],
                            [("Y", t)], attrs=attrs, promote=t != F,
                            ref=lambda x, r, b, a=attrs: [roi_align_ref(f64(x), f64(r), b, **a)]))
    return out


def rnn_ref(op, attrs, names):
    def ref(*a):
        kw = {k: f64(v) if v.dtype != np.int32 else v for k, v in zip(names, a)}
        return rnn_family_ref(op, kw["X"], kw["W"], kw["R"], kw.get("B"), kw.get("sequence_lens"),
                              kw.get("initial_h"), kw.get("initial_c"), attrs["hidden_size"],
                              attrs.get("direction", "forward"), attrs.get("layout", 0),
                              attrs.get("clip"), attrs.get("linear_before_reset", 0))
    return ref


def norm_rnn_misc():
    out = []
    for t in (F, BF, H):
        tn = tname(t)
        n = "instancenormalization_22_%s" % tn
        out.append(Case(n, "InstanceNormalization", 22,
                        [("input", t, rand(n, t, (2, 3, 4, 3))), ("scale", t, rand(n, t, (3,), salt="s")),
                         ("B", t, rand(n, t, (3,), salt="b"))], [("output", t)],
                        attrs={"epsilon": 1e-3}, promote=t != F,
                        ref=lambda x, s, b: [_inorm(f64(x), f64(s), f64(b), 1e-3)]))
        n = "lpnormalization_22_%s" % tn
        out.append(Case(n, "LpNormalization", 22, [("input", t, rand(n, t, (3, 4, 5)))],
                        [("output", t)], attrs={"axis": 1, "p": 1}, promote=t != F,
                        ref=lambda x: [f64(x) / np.sum(np.abs(f64(x)), axis=1, keepdims=True)]))
        n = "lpnormalization_22_default_%s" % tn
        out.append(Case(n, "LpNormalization", 22, [("input", t, rand(n, t, (3, 5)))],
                        [("output", t)], promote=t != F,
                        ref=lambda x: [f64(x) / np.sqrt(np.sum(f64(x) ** 2, axis=-1, keepdims=True))]))
        n = "det_22_%s" % tn
        out.append(Case(n, "Det", 22, [("X", t, rand(n, t, (2, 3, 3), -2, 2))], [("Y", t)],
                        promote=t != F, ref=lambda x: [np.linalg.det(f64(x))]))
        n = "eyelike_22_%s" % tn
        out.append(Case(n, "EyeLike", 22, [("input", t, rand(n, t, (4, 5)))], [("output", t)],
                        attrs={"k": 1}, ref=lambda x: [np.eye(4, 5, 1)]))
        n = "eyelike_22_dtype_%s" % tn
        out.append(Case(n, "EyeLike", 22, [("input", D.INT32, rand(n, D.INT32, (3, 3)))],
                        [("output", t)], attrs={"k": -1, "dtype": t},
                        ref=lambda x: [np.eye(3, 3, -1)]))
        n = "dropout_22_inference_%s" % tn
        out.append(Case(n, "Dropout", 22, [("data", t, rand(n, t, (3, 5)))],
                        [("output", t), ("mask", D.BOOL)], attrs={"seed": 3},
                        ref=lambda x: [x, np.ones(x.shape, bool)]))
        n = "dropout_22_training_ratio_zero_%s" % tn
        out.append(Case(n, "Dropout", 22, [("data", t, rand(n, t, (2, 7))),
                                           ("ratio", F, np.array(0.0, np.float32)),
                                           ("training_mode", D.BOOL, np.array(True))],
                        [("output", t), ("mask", D.BOOL)],
                        ref=lambda x, r, m: [x, np.ones(x.shape, bool)]))
        out += nll(t)
        out += random_ops(t)
    for t in (D.F8E4M3FN, D.F8E5M2):
        n = "dropout_22_%s" % tname(t)
        out.append(Case(n, "Dropout", 22, [("data", t, rand(n, t, (2, 5)))], [("output", t)],
                        ref=lambda x: [x]))
    out += rnn_cases()
    return out


def _inorm(x, s, b, eps):
    m = x.mean(axis=(2, 3), keepdims=True)
    v = x.var(axis=(2, 3), keepdims=True)
    return (x - m) / np.sqrt(v + eps) * s.reshape(1, -1, 1, 1) + b.reshape(1, -1, 1, 1)


def nll(t):
    out = []
    tn = tname(t)
    for tag, red, weight, ignore in [("mean_weight", "mean", True, None),
                                     ("sum_ignore_index", "sum", False, 2),
                                     ("none_weight_ignore", "none", True, 0)]:
        n = "negativeloglikelihoodloss_22_%s_%s" % (tag, tn)
        x = rand(n, t, (3, 4, 2), -3, 0)
        tgt = rng(n).integers(0, 4, size=(3, 2)).astype(np.int64)
        ins = [("input", t, x), ("target", D.INT64, tgt)]
        if weight:
            ins.append(("weight", t, rand(n, t, (4,), 0.2, 1.5, salt="w")))
        attrs = {"reduction": red}
        if ignore is not None:
            attrs["ignore_index"] = ignore

        def ref(x, tg, w=None, red=red, ignore=ignore):
            x = f64(x)
            w = np.ones(x.shape[1]) if w is None else f64(w)
            loss = np.zeros(tg.shape)
            wt = np.zeros(tg.shape)
            for i in np.ndindex(*tg.shape):
                c = int(tg[i])
                if ignore is not None and c == ignore:
                    continue
                loss[i] = -x[(i[0], c) + i[1:]] * w[c]
                wt[i] = w[c]
            if red == "none":
                return [loss]
            if red == "sum":
                return [np.array(loss.sum())]
            return [np.array(loss.sum() / wt.sum())]
        out.append(Case(n, "NegativeLogLikelihoodLoss", 22, ins, [("loss", t)], attrs=attrs,
                        promote=t != F, ref=ref))
    return out


def random_ops(t):
    """Random operators made deterministic by their parameters (the values drawn do not matter):
    scale 0, low == high, probabilities 0/1, a single category with all the mass."""
    tn = tname(t)
    out = []
    out.append(Case("randomnormal_22_scale0_%s" % tn, "RandomNormal", 22, [], [("y", t)],
                    attrs={"shape": [3, 4], "mean": 1.5, "scale": 0.0, "dtype": t, "seed": 1.0},
                    ref=lambda: [np.full((3, 4), 1.5)]))
    out.append(Case("randomuniform_22_low_eq_high_%s" % tn, "RandomUniform", 22, [], [("y", t)],
                    attrs={"shape": [2, 5], "low": -2.0, "high": -2.0, "dtype": t, "seed": 2.0},
                    ref=lambda: [np.full((2, 5), -2.0)]))
    x = rand("rlike" + tn, D.INT32, (2, 3))
    out.append(Case("randomnormallike_22_scale0_%s" % tn, "RandomNormalLike", 22,
                    [("input", D.INT32, x)], [("y", t)],
                    attrs={"mean": -0.5, "scale": 0.0, "dtype": t},
                    ref=lambda x: [np.full(x.shape, -0.5)]))
    out.append(Case("randomuniformlike_22_low_eq_high_%s" % tn, "RandomUniformLike", 22,
                    [("input", t, rand("rul" + tn, t, (3, 2)))], [("y", t)],
                    attrs={"low": 0.25, "high": 0.25}, ref=lambda x: [np.full(x.shape, 0.25)]))
    p = np.array([[0, 1, 1, 0], [1, 0, 0, 1]], np.float32)
    out.append(Case("bernoulli_22_probabilities_01_%s" % tn, "Bernoulli", 22, [("x", t, p)],
                    [("y", t)], attrs={"seed": 5.0}, ref=lambda x: [x]))
    out.append(Case("bernoulli_22_dtype_bool_%s" % tn, "Bernoulli", 22, [("x", t, p)],
                    [("y", D.BOOL)], attrs={"dtype": D.BOOL}, ref=lambda x: [x.astype(bool)]))
    logits = np.array([[-1e4, 0.0, -1e4], [0.0, -1e4, -1e4]], np.float32)
    logits = D.round_to(t, logits)
    out.append(Case("multinomial_22_one_category_%s" % tn, "Multinomial", 22,
                    [("input", t, logits)], [("output", D.INT32)],
                    attrs={"sample_size": 4, "seed": 7.0},
                    ref=lambda x: [np.array([[1] * 4, [0] * 4])]))
    out.append(Case("multinomial_22_int64_%s" % tn, "Multinomial", 22,
                    [("input", t, logits)], [("output", D.INT64)],
                    attrs={"sample_size": 3, "dtype": D.INT64},
                    ref=lambda x: [np.array([[1] * 3, [0] * 3])]))
    return out


def rnn_cases():
    out = []
    for t in (F, BF, H):
        tn = tname(t)
        B, S, I, Hs = 2, 3, 4, 3
        for op, gates in (("RNN", 1), ("GRU", 3), ("LSTM", 4)):
            n = "%s_22_%s" % (op.lower(), tn)
            ins = [("X", t, rand(n, t, (S, B, I), -1, 1)),
                   ("W", t, rand(n, t, (1, gates * Hs, I), -0.5, 0.5, salt="w")),
                   ("R", t, rand(n, t, (1, gates * Hs, Hs), -0.5, 0.5, salt="r")),
                   ("B", t, rand(n, t, (1, 2 * gates * Hs), -0.5, 0.5, salt="b"))]
            outs = [("Y", t), ("Y_h", t)] + ([("Y_c", t)] if op == "LSTM" else [])
            attrs = {"hidden_size": Hs}
            if op == "GRU":
                attrs["linear_before_reset"] = 1
            out.append(Case(n, op, 22, ins, outs, attrs=attrs, promote=t != F,
                            ref=rnn_ref(op, attrs, [i[0] for i in ins])))
            if t == F:
                n = "%s_22_bidirectional_seq_lens_initial_h" % op.lower()
                ins = [("X", t, rand(n, t, (S, B, I), -1, 1)),
                       ("W", t, rand(n, t, (2, gates * Hs, I), -0.5, 0.5, salt="w")),
                       ("R", t, rand(n, t, (2, gates * Hs, Hs), -0.5, 0.5, salt="r")),
                       ("B", t, rand(n, t, (2, 2 * gates * Hs), -0.5, 0.5, salt="b")),
                       ("sequence_lens", D.INT32, np.array([3, 2], np.int32)),
                       ("initial_h", t, rand(n, t, (2, B, Hs), -1, 1, salt="h"))]
                if op == "LSTM":
                    ins.append(("initial_c", t, rand(n, t, (2, B, Hs), -1, 1, salt="c")))
                a2 = dict(attrs, direction="bidirectional")
                out.append(Case(n, op, 22, ins, outs, attrs=a2, ref=rnn_ref(op, a2, [i[0] for i in ins])))
                n = "%s_22_layout1_clip" % op.lower()
                ins = [("X", t, rand(n, t, (B, S, I), -2, 2)),
                       ("W", t, rand(n, t, (1, gates * Hs, I), -1, 1, salt="w")),
                       ("R", t, rand(n, t, (1, gates * Hs, Hs), -1, 1, salt="r"))]
                outs1 = [("Y", t), ("Y_h", t)] + ([("Y_c", t)] if op == "LSTM" else [])
                a1 = dict(attrs, layout=1, clip=0.8, direction="reverse")
                out.append(Case(n, op, 22, ins, outs1, attrs=a1, ref=rnn_ref(op, a1, [i[0] for i in ins])))
    return out


def all_22():
    return (unary_22() + pool_conv() + roi_align() + norm_rnn_misc()
            + deform_conv(22, (F, BF, H)) + grid_sample(22, (F, BF, H, D.INT32)))
