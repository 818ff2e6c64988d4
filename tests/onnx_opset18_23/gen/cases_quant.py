"""QuantizeLinear / DequantizeLinear (19, 21, 23), QLinearMatMul-21 and DeformConv (19, 22)."""
import numpy as np

import dtypes as D
from mk import Case, rand, rng, f64, tname

INT_RANGE = {D.UINT8: (0, 255), D.INT8: (-128, 127), D.UINT16: (0, 65535),
             D.INT16: (-32768, 32767), D.UINT4: (0, 15), D.INT4: (-8, 7)}
F8 = [D.F8E4M3FN, D.F8E4M3FNUZ, D.F8E5M2, D.F8E5M2FNUZ]


def expand(scale, shape, axis, block):
    s = np.asarray(scale)
    if s.ndim == 0:
        return s
    axis %= len(shape)
    if block:
        return np.repeat(s, block, axis=axis).take(range(shape[axis]), axis=axis)
    bshape = [1] * len(shape)
    bshape[axis] = s.size
    return s.reshape(bshape)


def quantize_ref(x, scale, zp, t, axis=1, block=0, saturate=True):
    s = expand(scale, x.shape, axis, block).astype(np.float32)
    q = x.astype(np.float32) / s
    z = expand(zp, x.shape, axis, block) if zp is not None else 0
    if t in INT_RANGE:
        lo, hi = INT_RANGE[t]
        return np.clip(np.round(q.astype(np.float64)) + np.asarray(z, np.float64), lo, hi)
    return D.round_to(t, q + np.asarray(z, np.float32), saturate=saturate)


def dequantize_ref(x, scale, zp, axis=1, block=0):
    s = expand(scale, x.shape, axis, block)
    z = expand(zp, x.shape, axis, block) if zp is not None else 0
    return (x.astype(np.float64) - np.asarray(z, np.float64)) * s.astype(np.float64)


def qcase(kind, ver, tag, xt, st, qt, shape, scale_shape, axis=None, block=None, zp=True,
          saturate=None, output_dtype=None, precision=None, lo=-20.0, hi=20.0):
    n = "%s_%d_%s" % (kind, ver, tag)
    r = rng(n)
    # power-of-two scales: x / scale is exact in every float type, so the division precision
    # (spec: the type of y_scale, or `precision`) cannot change the rounded result
    scale = (2.0 ** r.integers(-3, 2, size=scale_shape)).astype(np.float32)
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if block:
        attrs["block_size"] = block
    if saturate is not None:
        attrs["saturate"] = saturate
    if output_dtype is not None:
        attrs["output_dtype"] = output_dtype
    if precision is not None:
        attrs["precision"] = precision
    ax, bl = (1 if axis is None else axis), block or 0
    if kind == "quantizelinear":
        x = rand(n, xt, shape, lo, hi)
        if saturate == 0:
            x = np.concatenate([x.reshape(-1)[:-3], np.array([1e6, -1e6, 5.0], np.float32)
                                ]).reshape(shape).astype(np.float32)
            x = D.round_to(xt, x) if xt != D.FLOAT else x
        ins = [("x", xt, x), ("y_scale", st, D.round_to(st, scale))]
        z = None
        if zp:
            z = rand(n, qt, scale_shape, -3, 3, salt="zp") if qt in INT_RANGE else \
                np.zeros(scale_shape, np.float32)
            if qt in (D.UINT8, D.UINT16, D.UINT4):
                z = np.abs(z).astype(D.LOGICAL[qt])
            ins.append(("y_zero_point", qt, z))
        return Case(n, "QuantizeLinear", ver, ins, [("y", qt)], attrs=attrs or None,
                    ref=lambda x, s, z=None: [quantize_ref(x, s, z, qt, ax, bl, saturate != 0)])
    x = rand(n, qt, shape, -8 if qt in INT_RANGE else -30, 15 if qt in INT_RANGE else 30)
    ins = [("x", qt, x), ("x_scale", st, D.round_to(st, scale))]
    if zp:
        z = rand(n, qt, scale_shape, -3, 3, salt="zp") if qt in INT_RANGE else \
            np.zeros(scale_shape, np.float32)
        if qt in (D.UINT8, D.UINT16, D.UINT4):
            z = np.abs(z).astype(D.LOGICAL[qt])
        ins.append(("x_zero_point", qt, z))
    ot = output_dtype or st
    return Case(n, "DequantizeLinear", ver, ins, [("y", ot)], attrs=attrs or None,
                ref=lambda x, s, z=None: [dequantize_ref(x, s, z, ax, bl)])


def quant_cases():
    out = []
    q, dq = "quantizelinear", "dequantizelinear"
    # opset 19: float8 outputs/inputs, saturate, float16/bfloat16 scales
    for t in F8:
        tn = tname(t)
        out += [qcase(q, 19, tn, D.FLOAT, D.FLOAT, t, (3, 5), ()),
                qcase(q, 19, tn + "_no_saturate", D.FLOAT, D.FLOAT, t, (3, 5), (), saturate=0),
                qcase(q, 19, tn + "_per_axis", D.FLOAT, D.FLOAT, t, (2, 3, 4), (3,), axis=1),
                qcase(dq, 19, tn, D.FLOAT, D.FLOAT, t, (3, 5), ()),
                qcase(dq, 19, tn + "_per_axis_float16", D.FLOAT16, D.FLOAT16, t, (2, 4), (4,),
                      axis=-1)]
    out += [qcase(q, 19, "float16_uint8", D.FLOAT16, D.FLOAT16, D.UINT8, (3, 7), (), lo=0),
            qcase(q, 19, "bfloat16_int8_per_axis", D.BFLOAT16, D.BFLOAT16, D.INT8, (4, 3), (4,),
                  axis=0),
            qcase(q, 19, "no_zero_point_uint8", D.FLOAT, D.FLOAT, D.UINT8, (3, 4), (), zp=False,
                  lo=-5, hi=80),
            qcase(dq, 19, "int8_bfloat16", D.BFLOAT16, D.BFLOAT16, D.INT8, (3, 5), ()),
            qcase(dq, 19, "uint8_float16_per_axis", D.FLOAT16, D.FLOAT16, D.UINT8, (2, 3, 2), (3,)),
            qcase(dq, 19, "int32_no_zero_point", D.FLOAT, D.FLOAT, D.INT32, (4, 3), (), zp=False)]
    # opset 21: int4/uint4/int16/uint16, blocked quantization
    for t in (D.INT4, D.UINT4, D.INT16, D.UINT16):
        tn = tname(t)
        out += [qcase(q, 21, tn, D.FLOAT, D.FLOAT, t, (3, 5), ()),
                qcase(q, 21, tn + "_per_axis", D.FLOAT, D.FLOAT, t, (3, 4), (4,), axis=1),
                qcase(q, 21, tn + "_blocked", D.FLOAT, D.FLOAT, t, (3, 7), (3, 3), axis=1, block=3),
                qcase(dq, 21, tn, D.FLOAT, D.FLOAT, t, (3, 5), ()),
                qcase(dq, 21, tn + "_blocked", D.FLOAT, D.FLOAT, t, (5, 4), (2, 4), axis=0,
                      block=3)]
    out += [qcase(q, 21, "int8_blocked_axis0", D.FLOAT, D.FLOAT, D.INT8, (6, 3), (2, 3), axis=0,
                  block=3),
            qcase(q, 21, "float8e4m3fn_blocked", D.FLOAT, D.FLOAT, D.F8E4M3FN, (2, 9), (2, 3),
                  axis=-1, block=4),
            qcase(q, 21, "uint8_saturation", D.FLOAT, D.FLOAT, D.UINT8, (4, 4), (), lo=-300,
                  hi=600),
            qcase(dq, 21, "int8_blocked_float16", D.FLOAT16, D.FLOAT16, D.INT8, (2, 8), (2, 2),
                  axis=1, block=4),
            qcase(dq, 21, "uint8_per_axis", D.FLOAT, D.FLOAT, D.UINT8, (3, 2, 5), (5,), axis=2)]
    # opset 23: float4e2m1, output_dtype, precision, x and scale of different types
    # float4e2m1: |x / scale| <= 6 (scale >= 1/8), the spec gives it no saturation rule
    out += [qcase(q, 23, "float4e2m1", D.FLOAT, D.FLOAT, D.FLOAT4E2M1, (3, 5), (), lo=-0.7, hi=0.7),
            qcase(q, 23, "float4e2m1_blocked", D.FLOAT, D.FLOAT, D.FLOAT4E2M1, (2, 7), (2, 2),
                  axis=1, block=4, lo=-0.7, hi=0.7),
            qcase(q, 23, "output_dtype_int4", D.FLOAT, D.FLOAT, D.INT4, (3, 5), (), zp=False,
                  output_dtype=D.INT4),
            qcase(q, 23, "output_dtype_uint8_no_zp", D.FLOAT, D.FLOAT, D.UINT8, (4, 3), (),
                  zp=False, output_dtype=D.UINT8, lo=0, hi=60),
            qcase(q, 23, "float16_x_float_scale", D.FLOAT16, D.FLOAT, D.INT8, (3, 5), ()),
            qcase(q, 23, "precision_float", D.BFLOAT16, D.BFLOAT16, D.INT8, (3, 4), (),
                  precision=D.FLOAT),
            qcase(q, 23, "float8e5m2_per_axis", D.FLOAT, D.FLOAT, D.F8E5M2, (2, 3), (3,), axis=1),
            qcase(dq, 23, "float4e2m1", D.FLOAT, D.FLOAT, D.FLOAT4E2M1, (3, 5), ()),
            qcase(dq, 23, "float4e2m1_blocked", D.FLOAT, D.FLOAT, D.FLOAT4E2M1, (4, 6), (4, 2),
                  axis=1, block=3),
            qcase(dq, 23, "output_dtype_float16", D.FLOAT, D.FLOAT, D.INT8, (3, 5), (),
                  output_dtype=D.FLOAT16),
            qcase(dq, 23, "output_dtype_bfloat16_int4", D.FLOAT, D.FLOAT, D.INT4, (2, 6), (2, 2),
                  axis=1, block=3, output_dtype=D.BFLOAT16),
            qcase(dq, 23, "uint16_per_axis", D.FLOAT, D.FLOAT, D.UINT16, (3, 4), (3,), axis=0)]
    out += [qcase(dq, 23, "int32_no_zero_point", D.FLOAT, D.FLOAT, D.INT32, (4, 3), (), zp=False),
            qcase(dq, 23, "int16_bfloat16_blocked", D.BFLOAT16, D.BFLOAT16, D.INT16, (2, 6),
                  (2, 2), axis=1, block=3),
            qcase(q, 23, "bfloat16_uint16_blocked", D.BFLOAT16, D.BFLOAT16, D.UINT16, (2, 6),
                  (2, 2), axis=1, block=3, lo=0, hi=40)]
    out += precision_cases()
    out += qlinear_matmul()
    return out


def _in_precision(t, v):
    """v (integers or float32 values) rounded to float type t: float32 logical values, float64
    for DOUBLE."""
    if t == D.DOUBLE:
        return np.asarray(v, np.float64)
    return D.round_to(t, np.asarray(v).astype(np.float32))


def _op_in(t, a, b, fn):
    """fn(a, b) of two values of float type t as t's own operation gives it: in float32 (once
    rounded, exact enough for a second rounding to the 16-bit types), or in float64."""
    w = np.float64 if t == D.DOUBLE else np.float32
    return _in_precision(t, fn(np.asarray(a, w), np.asarray(b, w)))


def precision_cases():
    """QuantizeLinear-23 / DequantizeLinear-23: the precision of the division (the `precision`
    attribute, else the type of y_scale) and of the multiplication (the output type). Scales are
    not powers of two and the values large enough that rounding the operands and the result to
    a 16-bit float changes the quantized or dequantized values."""
    out = []
    note = ("spec: the division x / y_scale is done in the precision attribute's type, else "
            "y_scale's type (operands and quotient rounded to it)")
    for tag, xt, st, qt, prec, lo, hi in [
            ("precision_float16", D.FLOAT, D.FLOAT, D.INT16, D.FLOAT16, -9000, 9000),
            ("precision_bfloat16_per_axis", D.FLOAT, D.FLOAT, D.INT16, D.BFLOAT16, -9000, 9000),
            ("float16_scale", D.FLOAT, D.FLOAT16, D.UINT16, None, 0, 18000),
            ("precision_float_float16", D.FLOAT16, D.FLOAT16, D.INT16, D.FLOAT, -9000, 9000),
            ("int32_x_int32_scale", D.INT32, D.INT32, D.INT16, None, -60000, 60000)]:
        n = "quantizelinear_23_" + tag
        shape, sshape = (3, 6), ((3,) if "per_axis" in tag else ())
        x = rand(n, xt, shape, lo, hi)
        if st == D.INT32:
            scale = np.array(2, np.int32)  # odd x / 2: every such quotient is a tie
            x = np.concatenate([x.reshape(-1)[:-3], np.array([7, 5, -5], np.int32)]).reshape(shape)
        else:
            scale = D.round_to(st, rng(n + "s").uniform(0.3, 1.7, size=sshape))
        z = rand(n, qt, sshape, 0 if qt == D.UINT16 else -50, 50, salt="zp")
        attrs = {"axis": 0} if sshape else {}
        if prec is not None:
            attrs["precision"] = prec
        p = prec or (D.DOUBLE if st == D.INT32 else st)

        def ref(x, s, z, p=p, qt=qt, ax=0):
            s = expand(s, x.shape, ax, 0)
            q = _op_in(p, _in_precision(p, x), _in_precision(p, s), np.divide)
            lo_, hi_ = INT_RANGE[qt]
            return [np.clip(np.rint(np.asarray(q, np.float64)) + z.reshape(np.shape(s)
                            if np.ndim(z) else ()), lo_, hi_)]
        out.append(Case(n, "QuantizeLinear", 23, [("x", xt, x), ("y_scale", st, scale),
                                                  ("y_zero_point", qt, z)], [("y", qt)],
                        attrs=attrs or None, ref=ref, note=note))
    n = "quantizelinear_23_output_dtype_int16_zero_point"
    x = rand(n, D.FLOAT, (2, 5), -900, 900)
    out.append(Case(n, "QuantizeLinear", 23,
                    [("x", D.FLOAT, x), ("y_scale", D.FLOAT, np.array(0.25, np.float32)),
                     ("y_zero_point", D.INT16, np.array(-7, np.int16))], [("y", D.INT16)],
                    attrs={"output_dtype": D.INT16},
                    ref=lambda x, s, z: [quantize_ref(x, s, z, D.INT16)]))
    note = ("spec: the output type sets the precision of the multiplication (x - x_zero_point) "
            "and x_scale are rounded to it, their product once")
    for tag, qt, st, ot, lo, hi, sshape in [
            ("output_dtype_float16_int16", D.INT16, D.FLOAT, D.FLOAT16, -30000, 30000, ()),
            ("output_dtype_bfloat16_int8_per_axis", D.INT8, D.FLOAT, D.BFLOAT16, -128, 127, (3,)),
            ("output_dtype_float_float16_scale", D.INT16, D.FLOAT16, D.FLOAT, -30000, 30000, ())]:
        n = "dequantizelinear_23_" + tag
        x = rand(n, qt, (3, 5), lo, hi)
        scale = D.round_to(st, rng(n + "s").uniform(0.3, 1.7, size=sshape))
        z = rand(n, qt, sshape, -20, 20, salt="zp")

        def ref(x, s, z, ot=ot):
            s = expand(s, x.shape, 0, 0)
            a = x.astype(np.float64) - np.asarray(z, np.float64).reshape(np.shape(s)
                                                                         if np.ndim(z) else ())
            return [_op_in(ot, _in_precision(ot, a), _in_precision(ot, s), np.multiply)]
        out.append(Case(n, "DequantizeLinear", 23, [("x", qt, x), ("x_scale", st, scale),
                                                    ("x_zero_point", qt, z)], [("y", ot)],
                        attrs=dict({"output_dtype": ot}, **({"axis": 0} if sshape else {})),
                        ref=ref, note=note))
    return out


def qlinear_matmul():
    out = []
    for tag, ta, tb, ty, sa in [("uint8", D.UINT8, D.UINT8, D.UINT8, ()),
                                ("int8", D.INT8, D.INT8, D.INT8, ()),
                                ("int8_uint8_per_column", D.INT8, D.UINT8, D.UINT8, (1, 5)),
                                ("float8e4m3fn", D.F8E4M3FN, D.F8E4M3FN, D.F8E4M3FN, ()),
                                ("bfloat16_scales", D.UINT8, D.UINT8, D.UINT8, ())]:
        n = "qlinearmatmul_21_" + tag
        st = D.BFLOAT16 if "bfloat16" in tag else D.FLOAT
        a = rand(n, ta, (3, 4), 0 if ta == D.UINT8 else -20, 40 if ta == D.UINT8 else 20)
        b = rand(n, tb, (4, 5), 0 if tb == D.UINT8 else -20, 40 if tb == D.UINT8 else 20, salt="b")
        f8 = ta in D.FLOAT_TYPES

        def z(t, shape, salt):
            if t in D.FLOAT_TYPES:
                return np.zeros(shape, np.float32)
            return rand(n, t, shape, 0 if t == D.UINT8 else -5, 10 if t == D.UINT8 else 5,
                        salt=salt)
        sb_shape = sa if sa else ()
        ins = [("a", ta, a), ("a_scale", st, np.array(0.0625, np.float32)),
               ("a_zero_point", ta, z(ta, (), "za")),
               ("b", tb, b), ("b_scale", st, D.round_to(st, rand(n, D.FLOAT, sb_shape, 0.05, 0.2,
                                                                  salt="sb"))),
               ("b_zero_point", tb, z(tb, sb_shape, "zb")),
               ("y_scale", st, np.array(0.5 if f8 else 0.25, np.float32)),
               ("y_zero_point", ty, z(ty, (), "zy"))]

        def ref(a, sa_, za, b, sb, zb, sy, zy, ty=ty):
            acc = (f64(a) - f64(za)) @ (f64(b) - f64(zb))
            real = acc * f64(sa_) * f64(sb)
            return [quantize_ref(real.astype(np.float32), sy, zy, ty, 1, 0)]
        out.append(Case(n, "QLinearMatMul", 21, ins, [("y", ty)], ref=ref, tol=(0, 1.01),
                        note="real product rounded once"))
    return out


def deform_conv_ref(x, w, offset, b=None, mask=None, strides=None, pads=None, dilations=None,
                    group=1, offset_group=1):
    N, C, H, W = x.shape
    oC, Cg, kH, kW = w.shape
    st = strides or [1, 1]
    pd = pads or [0, 0, 0, 0]
    dl = dilations or [1, 1]
    oH = (H + pd[0] + pd[2] - dl[0] * (kH - 1) - 1) // st[0] + 1
    oW = (W + pd[1] + pd[3] - dl[1] * (kW - 1) - 1) // st[1] + 1
    K = kH * kW
    cpo = C // offset_group

    def sample(img, h, wv):
        h0, w0 = int(np.floor(h)), int(np.floor(wv))
        v = 0.0
        for hh, ww in ((h0, w0), (h0, w0 + 1), (h0 + 1, w0), (h0 + 1, w0 + 1)):
            if 0 <= hh < H and 0 <= ww < W:
                v += img[hh, ww] * (1 - abs(h - hh)) * (1 - abs(wv - ww))
        return v
    y = np.zeros((N, oC, oH, oW))
    cols = np.zeros((N, C, K, oH, oW))
    for n in range(N):
        for c in range(C):
            og = c // cpo
            for k in range(K):
                i, j = divmod(k, kW)
                for oh in range(oH):
                    for ow in range(oW):
                        dy = offset[n, og * 2 * K + 2 * k, oh, ow]
                        dx = offset[n, og * 2 * K + 2 * k + 1, oh, ow]
                        h = oh * st[0] - pd[0] + i * dl[0] + dy
                        wv = ow * st[1] - pd[1] + j * dl[1] + dx
                        m = mask[n, og * K + k, oh, ow] if mask is not None else 1.0
                        cols[n, c, k, oh, ow] = sample(x[n, c], h, wv) * m
    ocg = oC // group
    for n in range(N):
        for o in range(oC):
            g = o // ocg
            y[n, o] = np.einsum("ckhw,ck->hw", cols[n, g * Cg:(g + 1) * Cg],
                                w[o].reshape(Cg, K))
    if b is not None:
        y += b.reshape(1, oC, 1, 1)
    return y


def deform_conv(ver, types):
    out = []
    specs = [("zero_offset", (1, 1, 4, 4), (1, 1, 2, 2), {}, False, False, 0.0),
             ("offsets", (1, 2, 5, 4), (3, 2, 2, 2), {}, False, False, 1.0),
             ("bias_mask", (1, 2, 4, 5), (2, 2, 3, 3), {"pads": [1, 1, 1, 1]}, True, True, 1.0),
             ("strides_dilations", (2, 1, 7, 6), (2, 1, 2, 2),
              {"strides": [2, 1], "dilations": [2, 1]}, True, False, 1.5),
             ("groups", (1, 4, 4, 4), (4, 2, 2, 2), {"group": 2, "offset_group": 2}, False, True,
              0.7)]
    for t in types:
        for tag, xs, ws, attrs, has_b, has_m, off_scale in specs:
            if t != D.FLOAT and tag not in ("offsets", "bias_mask"):
                continue
            n = "deform_conv_%d_%s_%s" % (ver, tag, tname(t))
            x = rand(n, t, xs, -2, 2)
            w = rand(n, t, ws, -1, 1, salt="w")
            st = attrs.get("strides", [1, 1])
            pd = attrs.get("pads", [0, 0, 0, 0])
            dl = attrs.get("dilations", [1, 1])
            oH = (xs[2] + pd[0] + pd[2] - dl[0] * (ws[2] - 1) - 1) // st[0] + 1
            oW = (xs[3] + pd[1] + pd[3] - dl[1] * (ws[3] - 1) - 1) // st[1] + 1
            og = attrs.get("offset_group", 1)
            K = ws[2] * ws[3]
            off = rand(n, t, (xs[0], og * 2 * K, oH, oW), -off_scale, off_scale, salt="o")
            ins = [("X", t, x), ("W", t, w), ("offset", t, off)]
            names = ["X", "W", "offset"]
            if has_b:
                ins.append(("B", t, rand(n, t, (ws[0],), salt="b")))
                names.append("B")
            if has_m:
                if not has_b:
                    names.append("")
                ins.append(("mask", t, rand(n, t, (xs[0], og * K, oH, oW), 0, 1, salt="m")))
                names.append("mask")
            attrs2 = dict(attrs, kernel_shape=list(ws[2:]))

            def ref(x, w, off, *rest, hb=has_b, hm=has_m, a=attrs):
                b = rest[0] if hb else None
                m = rest[-1] if hm else None
                return [deform_conv_ref(f64(x), f64(w), f64(off), None if b is None else f64(b),
                                        None if m is None else f64(m), a.get("strides"),
                                        a.get("pads"), a.get("dilations"), a.get("group", 1),
                                        a.get("offset_group", 1))]
            out.append(Case(n, "DeformConv", ver, ins, [("Y", t)], attrs=attrs2, node_inputs=names,
                            ref=ref, promote=t in (D.BFLOAT16, D.FLOAT16)))
    return out
