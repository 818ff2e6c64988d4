"""Operator versions added or changed in opset 18."""
import numpy as np
from onnx import helper

import dtypes as D
from mk import Case, node, rand, rng, f64, unary, i64, tname
from refs22 import pool_ref

INT8_TYPES = [D.UINT8, D.UINT16, D.UINT32, D.UINT64, D.INT8, D.INT16, D.INT32, D.INT64]


def bitwise():
    out = []
    fns = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor}
    for op, fn in fns.items():
        for t in INT8_TYPES:
            n = "%s_%s" % (op.lower(), tname(t))
            info = np.iinfo(D.NATIVE[t])
            a = rng(n).integers(info.min, info.max, size=(3, 5), dtype=D.NATIVE[t], endpoint=True)
            b = rng(n + "b").integers(info.min, info.max, size=(5,), dtype=D.NATIVE[t], endpoint=True)
            out.append(Case(n + "_bcast", op, 18, [("A", t, a), ("B", t, b)], [("C", t)],
                            ref=lambda a, b, fn=fn: [fn(a, b)]))
    for t in INT8_TYPES:
        n = "bitwisenot_%s" % tname(t)
        info = np.iinfo(D.NATIVE[t])
        x = rng(n).integers(info.min, info.max, size=(2, 3, 5), dtype=D.NATIVE[t], endpoint=True)
        out.append(Case(n, "BitwiseNot", 18, [("X", t, x)], [("Y", t)],
                        ref=lambda x: [np.invert(x)]))
    return out


def center_crop_pad_ref(x, shape, axes=None):
    axes = list(range(x.ndim)) if axes is None else [a % x.ndim for a in axes]
    out = x
    for a, s in zip(axes, shape):
        d = out.shape[a]
        if s < d:
            st = (d - s) // 2
            out = np.take(out, range(st, st + s), axis=a)
        elif s > d:
            before = (s - d) // 2
            pw = [(0, 0)] * out.ndim
            pw[a] = (before, s - d - before)
            out = np.pad(out, pw, constant_values=(0 if out.dtype != object else ""))
    return out


def center_crop_pad():
    out = []
    specs = [("crop_and_pad", D.FLOAT, (7, 4, 3), [4, 7, 3], None),
             ("crop_odd", D.FLOAT, (9, 8), [4, 3], None),
             ("pad_odd", D.INT32, (3, 2), [8, 5], None),
             ("axes_chw", D.FLOAT, (3, 5, 6), [2, 9], [1, 2]),
             ("axes_negative", D.UINT8, (4, 7, 2), [3, 4], [-1, -3]),
             ("float16", D.FLOAT16, (5, 6), [3, 8], None),
             ("bfloat16", D.BFLOAT16, (5, 6), [3, 8], None),
             ("int64_shape_int32", D.INT64, (6, 3), [3, 3], None)]
    for tag, t, shape, target, axes in specs:
        n = "center_crop_pad_" + tag
        x = rand(n, t, shape)
        st = np.array(target, dtype=np.int32 if tag.endswith("int32") else np.int64)
        attrs = {"axes": axes} if axes else None
        out.append(Case(n, "CenterCropPad", 18, [("input_data", t, x), ("shape", D.INT32 if
                        st.dtype == np.int32 else D.INT64, st)], [("y", t)], attrs=attrs,
                        ref=lambda x, s, axes=axes: [center_crop_pad_ref(x, list(s), axes)]))
    return out


def col2im_ref(x, image_shape, block_shape, dilations=None, pads=None, strides=None):
    nd = len(image_shape)
    dil = dilations or [1] * nd
    pad = pads or [0] * (2 * nd)
    st = strides or [1] * nd
    N, CK, L = x.shape
    K = int(np.prod(block_shape))
    C = CK // K
    padded = [image_shape[i] + pad[i] + pad[i + nd] for i in range(nd)]
    outsz = [(padded[i] - (dil[i] * (block_shape[i] - 1) + 1)) // st[i] + 1 for i in range(nd)]
    assert int(np.prod(outsz)) == L
    y = np.zeros((N, C) + tuple(padded), dtype=np.float64)
    for n in range(N):
        for c in range(C):
            for k, kidx in enumerate(np.ndindex(*block_shape)):
                for l, lidx in enumerate(np.ndindex(*outsz)):
                    pos = tuple(lidx[i] * st[i] + kidx[i] * dil[i] for i in range(nd))
                    y[(n, c) + pos] += x[n, c * K + k, l]
    sl = tuple(slice(pad[i], pad[i] + image_shape[i]) for i in range(nd))
    return y[(slice(None), slice(None)) + sl]


def col2im():
    out = []
    specs = [("basic", (1, 5, 5), [5, 5], [1, 5], {}),
             ("strides", (1, 9, 4), [5, 5], [3, 3], {"strides": [2, 2]}),
             ("pads", (1, 5, 15), [5, 5], [1, 5], {"pads": [0, 1, 0, 1]}),
             ("dilations", (1, 4, 5), [6, 6], [2, 2], {"dilations": [1, 5]}),
             ("batch_channels", (2, 12, 4), [3, 4], [2, 3], {}),
             ("5d", (1, 8, 8), [3, 4, 5], [2, 2, 2], {"strides": [1, 2, 2]}),
             ("combined", (1, 18, 8), [7, 5], [3, 3],
              {"dilations": [1, 1], "strides": [2, 3], "pads": [1, 0, 1, 1]})]
    for tag, xs, img, blk, attrs in specs:
        n = "col2im_" + tag
        x = rand(n, D.FLOAT, xs)
        out.append(Case(n, "Col2Im", 18, [("input", D.FLOAT, x), ("image_shape", D.INT64, i64(*img)),
                                          ("block_shape", D.INT64, i64(*blk))], [("output", D.FLOAT)],
                        attrs=attrs or None,
                        ref=lambda x, i, b, a=attrs: [col2im_ref(f64(x), list(i), list(b), **a)]))
    n = "col2im_float16"
    x = rand(n, D.FLOAT16, (1, 4, 9))
    out.append(Case(n, "Col2Im", 18, [("input", D.FLOAT16, x), ("image_shape", D.INT64, i64(4, 4)),
                                      ("block_shape", D.INT64, i64(2, 2))], [("output", D.FLOAT16)],
                    ref=lambda x, i, b: [col2im_ref(f64(x), list(i), list(b))], promote=True))
    return out


def group_norm_ref(x, scale, bias, num_groups, eps=1e-5, per_channel=False):
    N, C = x.shape[:2]
    g = x.reshape(N, num_groups, -1).astype(np.float64)
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    bshape = (1, C) + (1,) * (x.ndim - 2)
    if per_channel:
        s, b = scale.reshape(bshape), bias.reshape(bshape)
    else:
        s = np.repeat(scale, C // num_groups).reshape(bshape)
        b = np.repeat(bias, C // num_groups).reshape(bshape)
    return y * s + b


def group_norm_18():
    out = []
    for tag, t, shape, groups, eps in [("basic", D.FLOAT, (3, 4, 2, 2), 2, None),
                                       ("epsilon", D.FLOAT, (2, 6, 3, 5), 3, 1e-2),
                                       ("one_group", D.FLOAT, (1, 5, 7), 1, None),
                                       ("groups_eq_channels", D.DOUBLE, (2, 3, 5), 3, None),
                                       ("float16", D.FLOAT16, (2, 4, 3, 3), 2, None)]:
        n = "group_normalization_18_" + tag
        x = rand(n, t, shape)
        s = rand(n, t, (groups,), salt="s")
        b = rand(n, t, (groups,), salt="b")
        attrs = {"num_groups": groups}
        if eps:
            attrs["epsilon"] = eps
        out.append(Case(n, "GroupNormalization", 18, [("X", t, x), ("scale", t, s), ("bias", t, b)],
                        [("Y", t)], attrs=attrs, promote=t == D.FLOAT16,
                        ref=lambda x, s, b, g=groups, e=eps or 1e-5: [
                            group_norm_ref(f64(x), f64(s), f64(b), g, e)]))
    return out


def lp_pool():
    out = []
    specs = [("p1", D.FLOAT, (1, 2, 7, 7), {"kernel_shape": [3, 3], "p": 1}),
             ("p3_strides_pads", D.FLOAT, (1, 3, 8, 9),
              {"kernel_shape": [3, 2], "p": 3, "strides": [2, 2], "pads": [1, 0, 1, 1]}),
             ("ceil_mode", D.FLOAT, (1, 1, 7, 7), {"kernel_shape": [3, 3], "strides": [2, 2],
                                                   "ceil_mode": 1}),
             ("dilations", D.FLOAT, (1, 2, 9, 9), {"kernel_shape": [2, 2], "dilations": [2, 3]}),
             ("auto_pad_same_upper", D.FLOAT, (1, 1, 5, 6), {"kernel_shape": [2, 3],
                                                             "auto_pad": "SAME_UPPER", "p": 2}),
             ("1d", D.FLOAT, (2, 3, 11), {"kernel_shape": [4], "strides": [3]}),
             ("float16", D.FLOAT16, (1, 2, 6, 6), {"kernel_shape": [2, 2]})]
    for tag, t, shape, attrs in specs:
        n = "lppool_18_" + tag
        out.append(Case(n, "LpPool", 18, [("x", t, rand(n, t, shape))], [("y", t)], attrs=attrs,
                        promote=t == D.FLOAT16,
                        ref=lambda x, a=attrs: [pool_ref(f64(x), "lp", **a)]))
    return out


def mish(ver, types):
    fn = lambda x: x * np.tanh(np.log1p(np.exp(x)))  # noqa: E731
    return [unary("mish_%d_%s" % (ver, tname(t)), "Mish", ver, t, (3, 7), fn, lo=-6, hi=6)
            for t in types]


def optional_ops():
    out = []
    x = rand("optional", D.FLOAT, (2, 3))
    # OptionalHasElement with an optional holding a tensor, an empty optional, a plain tensor.
    out.append(Case("optional_has_element_tensor", "OptionalHasElement", 18, [("x", D.FLOAT, x)],
                    [("y", D.BOOL)], nodes=[node("Optional", ["x"], ["opt"]),
                                             node("OptionalHasElement", ["opt"], ["y"])],
                    ref=lambda x: [np.array(True)]))
    tp = helper.make_tensor_type_proto(D.FLOAT, None)
    out.append(Case("optional_has_element_empty_optional", "OptionalHasElement", 18,
                    [("x", D.FLOAT, x)], [("y", D.BOOL), ("z", D.FLOAT)],
                    nodes=[node("Optional", [], ["opt"], type=tp),
                           node("OptionalHasElement", ["opt"], ["y"]), node("Identity", ["x"], ["z"])],
                    ref=lambda x: [np.array(False), x]))
    out.append(Case("optional_has_element_plain_tensor", "OptionalHasElement", 18,
                    [("x", D.INT32, rand("ohe", D.INT32, (4,)))], [("y", D.BOOL)],
                    ref=lambda x: [np.array(True)]))
    out.append(Case("optional_has_element_no_input", "OptionalHasElement", 18,
                    [("x", D.FLOAT, x)], [("y", D.BOOL), ("z", D.FLOAT)],
                    nodes=[node("OptionalHasElement", [""], ["y"]), node("Identity", ["x"], ["z"])],
                    ref=lambda x: [np.array(False), x]))
    out.append(Case("optional_get_element_tensor", "OptionalGetElement", 18, [("x", D.FLOAT, x)],
                    [("y", D.FLOAT)], nodes=[node("Optional", ["x"], ["opt"]),
                                              node("OptionalGetElement", ["opt"], ["y"])],
                    ref=lambda x: [x]))
    out.append(Case("optional_get_element_plain_tensor", "OptionalGetElement", 18,
                    [("x", D.INT64, rand("oge", D.INT64, (3, 1)))], [("y", D.INT64)],
                    ref=lambda x: [x]))
    out.append(Case("optional_get_element_sequence", "OptionalGetElement", 18,
                    [("x", D.FLOAT, x)], [("y", D.FLOAT)],
                    nodes=[node("SequenceConstruct", ["x", "x"], ["seq"]),
                           node("Optional", ["seq"], ["opt"]),
                           node("OptionalGetElement", ["opt"], ["s2"]),
                           node("ConcatFromSequence", ["s2"], ["y"], axis=0)],
                    ref=lambda x: [np.concatenate([x, x], 0)]))
    return out


def pad_ref(x, pads, value=0, mode="constant", axes=None):
    r = x.ndim
    axes = list(range(r)) if axes is None else [a % r for a in axes]
    k = len(axes)
    full = [[0, 0] for _ in range(r)]
    for i, a in enumerate(axes):
        full[a] = [int(pads[i]), int(pads[i + k])]
    sl = tuple(slice(max(-b, 0), x.shape[a] - max(-e, 0)) for a, (b, e) in enumerate(full))
    x = x[sl]
    pw = [(max(b, 0), max(e, 0)) for b, e in full]
    if mode == "constant":
        return np.pad(x, pw, mode="constant", constant_values=value)
    return np.pad(x, pw, mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])


def pad_cases(ver, modes, types_extra):
    out = []
    specs = [("constant_axes", D.FLOAT, (3, 4, 5), i64(1, 2, 0, 3), 1.5, "constant", [1, 2]),
             ("constant_negative_axes", D.FLOAT, (2, 5, 3), i64(0, 2, 1, 1), -2.0, "constant", [-2, -1]),
             ("constant_no_value", D.INT32, (3, 4), i64(1, 0, 2, 3), None, "constant", None),
             ("negative_pads", D.FLOAT, (4, 7), i64(-1, 2, 1, -3), 0.5, "constant", None),
             ("reflect_axes", D.FLOAT, (2, 3, 6), i64(2, 3), None, "reflect", [-1]),
             ("edge_axes", D.INT64, (4, 5), i64(1, 3), None, "edge", [0]),
             ("bfloat16", D.BFLOAT16, (3, 5), i64(1, 1, 2, 0), 0.25, "constant", None),
             ("float16_reflect", D.FLOAT16, (3, 5), i64(1, 2, 2, 1), None, "reflect", None),
             ("bool", D.BOOL, (2, 3), i64(1, 1), True, "constant", [1]),
             ("string", D.STRING, (2, 3), i64(0, 1, 2, 0), "pad", "constant", None)]
    if "wrap" in modes:
        specs += [("wrap", D.FLOAT, (3, 4), i64(2, 1, 1, 3), None, "wrap", None),
                  ("wrap_axes", D.INT32, (2, 3, 4), i64(3, 2), None, "wrap", [2])]
    specs += types_extra
    for tag, t, shape, pads, value, mode, axes in specs:
        n = "pad_%d_%s" % (ver, tag)
        x = rand(n, t, shape)
        ins = [("data", t, x), ("pads", D.INT64, pads)]
        names = ["data", "pads"]
        if value is not None:
            ins.append(("constant_value", t, np.array(value, dtype=D.LOGICAL[t])))
            names.append("constant_value")
        if axes is not None:
            if value is None:
                names.append("")
            ins.append(("axes", D.INT64, i64(*axes)))
            names.append("axes")
        attrs = {"mode": mode} if mode != "constant" else None
        out.append(Case(n, "Pad", ver, ins, [("output", t)], attrs=attrs, node_inputs=names,
                        ref=lambda *a, mode=mode, axes=axes, hv=value is not None:
                        [pad_ref(a[0], a[1], a[2] if hv else 0, mode, axes)]))
    return out
