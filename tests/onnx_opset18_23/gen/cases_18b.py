"""Opset 18 (continued): reductions with axes as an input, Resize, Scatter*, Split."""
import numpy as np

import dtypes as D
from mk import Case, rand, f64, i64, tname

REDUCE = {
    "ReduceL1": lambda x, ax, kd: np.sum(np.abs(x), axis=ax, keepdims=kd),
    "ReduceL2": lambda x, ax, kd: np.sqrt(np.sum(x * x, axis=ax, keepdims=kd)),
    "ReduceLogSum": lambda x, ax, kd: np.log(np.sum(x, axis=ax, keepdims=kd)),
    "ReduceLogSumExp": lambda x, ax, kd: np.log(np.sum(np.exp(x), axis=ax, keepdims=kd)),
    "ReduceMax": lambda x, ax, kd: np.max(x, axis=ax, keepdims=kd),
    "ReduceMean": lambda x, ax, kd: np.mean(x, axis=ax, keepdims=kd),
    "ReduceMin": lambda x, ax, kd: np.min(x, axis=ax, keepdims=kd),
    "ReduceProd": lambda x, ax, kd: np.prod(x, axis=ax, keepdims=kd),
    "ReduceSumSquare": lambda x, ax, kd: np.sum(x * x, axis=ax, keepdims=kd),
}
INT_OK = {"ReduceL1", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare"}


def reduce_case(op, ver, tag, t, shape, axes, keepdims, noop=None, lo=-2.0, hi=2.0):
    n = "%s_%d_%s" % (op.lower(), ver, tag)
    if op == "ReduceLogSum":
        lo, hi = 0.25, 3.0
    x = rand(n, t, shape, lo, hi)
    ins = [("data", t, x)]
    if axes is not None:
        ins.append(("axes", D.INT64, np.array(axes, dtype=np.int64)))
    attrs = {}
    if keepdims is not None:
        attrs["keepdims"] = keepdims
    if noop is not None:
        attrs["noop_with_empty_axes"] = noop
    fn = REDUCE[op]

    def ref(x, axes=None):
        kd = bool(1 if keepdims is None else keepdims)
        # noop_with_empty_axes=1 with empty axes: the reduction is the identity, but composite
        # reductions still apply their elementwise steps (ReduceLogSum returns log(x)); numpy's
        # axis=() is exactly that
        if axes is not None and len(axes) == 0:
            ax = () if noop else None
        else:
            ax = None if axes is None else tuple(int(a) for a in axes)
        if t in D.FLOAT_TYPES:
            return [fn(f64(x), ax, kd)]
        if t == D.BOOL:
            return [fn(x, ax, kd)]
        return [fn(x.astype(np.int64), ax, kd).astype(D.NATIVE[t])]
    return Case(n, op, ver, ins, [("reduced", t)], attrs=attrs or None, ref=ref,
                promote=t in (D.BFLOAT16, D.FLOAT16))


def reductions():
    out = []
    for op in REDUCE:
        out += [reduce_case(op, 18, "axes_keepdims", D.FLOAT, (3, 5, 4), [1], 1),
                reduce_case(op, 18, "negative_axes", D.FLOAT, (3, 2, 5), [-1, 0], 0),
                reduce_case(op, 18, "default_axes", D.FLOAT, (2, 3, 3), None, 1),
                reduce_case(op, 18, "empty_axes_noop", D.FLOAT, (3, 4), [], None, noop=1),
                reduce_case(op, 18, "empty_axes_reduce_all", D.FLOAT, (3, 4), [], 0, noop=0),
                reduce_case(op, 18, "double", D.DOUBLE, (2, 7), [1], 0),
                reduce_case(op, 18, "float16", D.FLOAT16, (3, 5), [0], 1),
                reduce_case(op, 18, "bfloat16", D.BFLOAT16, (4, 3, 2), [1, 2], 0)]
        if op in INT_OK:
            out.append(reduce_case(op, 18, "int32", D.INT32, (3, 4), [1], 1, lo=-3, hi=3))
            out.append(reduce_case(op, 18, "int64", D.INT64, (2, 5), [0], 0, lo=-3, hi=3))
        if op in ("ReduceMax", "ReduceMin"):
            out.append(reduce_case(op, 18, "uint8", D.UINT8, (3, 5), [1], 0, lo=0, hi=255))
            out.append(reduce_case(op, 18, "int8", D.INT8, (5, 3), [0], 1, lo=-128, hi=127))
    for op in ("ReduceMax", "ReduceMin"):
        out += [reduce_case(op, 20, "bool", D.BOOL, (3, 4), [1], 0),
                reduce_case(op, 20, "bool_keepdims", D.BOOL, (2, 3, 2), [0, 2], 1),
                reduce_case(op, 20, "bool_all", D.BOOL, (4, 2), None, 0),
                reduce_case(op, 20, "float", D.FLOAT, (3, 4), [-1], 1),
                reduce_case(op, 20, "bfloat16", D.BFLOAT16, (3, 5), [0], 0)]
    return out


def resize(ver):
    out = []
    x44 = (1, 1, 4, 4)
    f = lambda *v: np.array(v, dtype=np.float32)  # noqa: E731
    specs = [("linear_antialias_down", D.FLOAT, (1, 1, 6, 7), None, f(1, 1, 0.5, 0.6), None,
              {"mode": "linear", "antialias": 1}),
             ("cubic_antialias_down", D.FLOAT, (1, 2, 7, 6), None, f(1, 1, 0.6, 0.5), None,
              {"mode": "cubic", "antialias": 1}),
             ("linear_axes_scales", D.FLOAT, (1, 2, 5, 4), None, f(1.5, 0.75), None,
              {"mode": "linear", "axes": [2, 3]}),
             ("nearest_axes_sizes", D.FLOAT, (1, 3, 4, 5), None, None, i64(7, 3),
              {"mode": "nearest", "axes": [-1, -2]}),
             ("keep_aspect_not_larger", D.FLOAT, (1, 1, 4, 6), None, None, i64(5, 5),
              {"mode": "linear", "axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
             ("keep_aspect_not_smaller", D.FLOAT, (1, 1, 4, 6), None, None, i64(5, 5),
              {"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}),
             ("tf_crop_and_resize_axes", D.FLOAT, x44, f(0.2, 0.3, 0.8, 0.9), None, i64(3, 3),
              {"mode": "linear", "axes": [2, 3], "coordinate_transformation_mode":
               "tf_crop_and_resize", "extrapolation_value": 5.0}),
             # integer data with nearest modes: the spec leaves the rounding of interpolated
             # integers open (ORT truncates), nearest sampling has one answer
             ("uint8_nearest_round_prefer_ceil", D.UINT8, (1, 1, 3, 5), None, f(1, 1, 2.0, 1.5),
              None, {"mode": "nearest", "nearest_mode": "round_prefer_ceil"}),
             ("int8_nearest_floor", D.INT8, (1, 2, 3, 3), None, f(1, 1, 1.7, 2.3), None,
              {"mode": "nearest", "nearest_mode": "floor"}),
             ("bfloat16_linear", D.BFLOAT16, (1, 1, 3, 4), None, f(1, 1, 2, 1.5), None,
              {"mode": "linear"}),
             ("float16_cubic", D.FLOAT16, (1, 1, 4, 4), None, f(1, 1, 1.5, 1.5), None,
              {"mode": "cubic", "exclude_outside": 1, "cubic_coeff_a": -0.5})]
    if ver >= 19:
        specs += [("half_pixel_symmetric_down", D.FLOAT, (1, 1, 5, 7), None, f(1, 1, 0.6, 0.5),
                   None, {"mode": "linear", "coordinate_transformation_mode":
                          "half_pixel_symmetric"}),
                  ("half_pixel_symmetric_up", D.FLOAT, (1, 1, 3, 4), None, f(1, 1, 2.0, 1.75),
                   None, {"mode": "linear", "coordinate_transformation_mode":
                          "half_pixel_symmetric"}),
                  ("half_pixel_symmetric_cubic_sizes", D.FLOAT, (1, 2, 4, 5), None, None,
                   i64(1, 2, 7, 3), {"mode": "cubic", "coordinate_transformation_mode":
                                     "half_pixel_symmetric"})]
        specs = specs[-3:]
    for tag, t, shape, roi, scales, sizes, attrs in specs:
        n = "resize_%d_%s" % (ver, tag)
        x = rand(n, t, shape, 0, 100) if t in (D.UINT8, D.INT8) else rand(n, t, shape)
        ins, names = [("X", t, x)], ["X"]
        if roi is not None:
            ins.append(("roi", D.FLOAT, roi))
        names.append("roi" if roi is not None else "")
        if scales is not None:
            ins.append(("scales", D.FLOAT, scales))
            names.append("scales")
        else:
            names.append("")
            ins.append(("sizes", D.INT64, sizes))
            names.append("sizes")
        out.append(Case(n, "Resize", ver, ins, [("Y", t)], attrs=attrs, node_inputs=names,
                        promote=t in (D.BFLOAT16, D.FLOAT16)))
    return out


def scatter_elements_ref(data, idx, upd, axis, reduction):
    out = data.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = int(idx[pos]) % data.shape[axis]
        tgt, u = tuple(tgt), upd[pos]
        if reduction == "none":
            out[tgt] = u
        elif reduction == "add":
            out[tgt] = out[tgt] + u
        elif reduction == "mul":
            out[tgt] = out[tgt] * u
        elif reduction == "max":
            out[tgt] = max(out[tgt], u)
        else:
            out[tgt] = min(out[tgt], u)
    return out


def scatter_nd_ref(data, idx, upd, reduction):
    out = data.copy()

    for pos in np.ndindex(*idx.shape[:-1]):
        tgt = tuple(int(v) for v in idx[pos])
        u = upd[pos]
        cur = out[tgt]
        out[tgt] = {"none": u, "add": cur + u, "mul": cur * u,
                    "max": np.maximum(cur, u), "min": np.minimum(cur, u)}[reduction]
    return out


def scatter():
    out = []
    for red in ("max", "min", "add", "mul", "none"):
        for t in ((D.FLOAT, D.INT32, D.BFLOAT16) if red in ("max", "min") else (D.FLOAT,)):
            n = "scatter_elements_18_%s_%s" % (red, tname(t))
            data = rand(n, t, (3, 5))
            # duplicate indices (reductions combine them); negative index counts from the end
            idx = np.array([[1, 1, -1], [0, 4, 1], [4, 4, 2]], dtype=np.int64)
            upd = rand(n, t, (3, 3), salt="u")
            dup_ok = red != "none"
            if not dup_ok:
                idx = np.array([[1, 0, -1], [0, 4, 1], [4, 3, 2]], dtype=np.int64)
            out.append(Case(n, "ScatterElements", 18, [("data", t, data), ("indices", D.INT64, idx),
                                                       ("updates", t, upd)], [("y", t)],
                            attrs={"axis": 1, "reduction": red}, promote=t == D.BFLOAT16,
                            ref=lambda d, i, u, red=red: [scatter_elements_ref(d, i, u, 1, red)]))
        for t in ((D.FLOAT, D.INT64, D.FLOAT16) if red in ("max", "min") else (D.FLOAT,)):
            n = "scatternd_18_%s_%s" % (red, tname(t))
            data = rand(n, t, (4, 3, 2))
            idx = np.array([[[1], [3]], [[1], [0]]], dtype=np.int64) if red != "none" else \
                np.array([[[1], [3]], [[2], [0]]], dtype=np.int64)
            upd = rand(n, t, (2, 2, 3, 2), salt="u")
            out.append(Case(n, "ScatterND", 18, [("data", t, data), ("indices", D.INT64, idx),
                                                 ("updates", t, upd)], [("y", t)],
                            attrs={"reduction": red}, promote=t == D.FLOAT16,
                            ref=lambda d, i, u, red=red: [scatter_nd_ref(d, i, u, red)]))
    return out


def split_ref(x, axis, sizes):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def split():
    out = []
    specs = [("num_outputs_uneven", D.FLOAT, (7, 2), 0, 3, None, [3, 3, 1]),
             ("num_outputs_even", D.INT64, (2, 6), 1, 3, None, [2, 2, 2]),
             ("num_outputs_uneven_last_axis", D.FLOAT, (2, 3, 5), -1, 2, None, [3, 2]),
             ("split_input", D.FLOAT, (2, 9), 1, None, [2, 3, 4], [2, 3, 4]),
             ("split_zero_size", D.INT32, (5, 2), 0, None, [2, 0, 3], [2, 0, 3]),
             ("bfloat16", D.BFLOAT16, (6, 3), 0, 4, None, [2, 2, 2, 0]),
             ("string", D.STRING, (5,), 0, 2, None, [3, 2]),
             ("bool", D.BOOL, (3, 4), 1, 3, None, [2, 2, 0])]
    for tag, t, shape, axis, num, sp, sizes in specs:
        if num is not None and num * int(np.ceil(shape[axis] / num)) - shape[axis] >= \
                int(np.ceil(shape[axis] / num)):
            sizes = None  # not a valid num_outputs split; skip
            continue
        n = "split_18_" + tag
        x = rand(n, t, shape)
        ins = [("input", t, x)]
        if sp is not None:
            ins.append(("split", D.INT64, i64(*sp)))
        attrs = {"axis": axis}
        if num is not None:
            attrs["num_outputs"] = num
        outs = [("output_%d" % i, t) for i in range(len(sizes))]
        out.append(Case(n, "Split", 18, ins, outs, attrs=attrs,
                        ref=lambda x, *s, axis=axis, sizes=sizes: split_ref(x, axis, sizes)))
    return out
