"""Operator versions added or changed in opset 19 (float8 types, DeformConv, Pad wrap, ...)
and the float8/int4/float4 pass-through cases shared by opsets 19, 21 and 23."""
import numpy as np
from onnx import helper

import dtypes as D
from mk import Case, node, rand, rng, i64, tname, passthrough
from case import vinfo

F8 = [D.F8E4M3FN, D.F8E4M3FNUZ, D.F8E5M2, D.F8E5M2FNUZ]
SPECIALS = np.array([0.0, -0.0, 1e6, -1e6, np.inf, -np.inf, np.nan, 0.01, 300.0, -250.0,
                     0.0078125, 3.3, -17.5], dtype=np.float32)


def cast_cases(ver, narrow_types):
    """Casts to and from the types opset `ver` added, saturate on and off."""
    out = []
    for t in narrow_types:
        tn = tname(t)
        is_f = t in D.FLOAT_TYPES
        # wide -> narrow
        if is_f:
            x = np.concatenate([SPECIALS, rng("c%s" % tn).uniform(-8, 8, 8).astype(np.float32)])
            if t == D.FLOAT4E2M1:  # no NaN/Inf in float4e2m1
                x = np.concatenate([x, np.array([0.25, 0.75, 1.25, 2.5, 5.0, 7.0], np.float32)])
                x = x[np.abs(x) <= 6]  # the spec gives no out-of-range rule for float4e2m1
            for sat in ((1, 0) if t in F8 else (None,)):
                n = "cast_%d_float_to_%s%s" % (ver, tn, "" if sat is None else
                                                ("_saturate" if sat else "_no_saturate"))
                attrs = {"to": t}
                if sat is not None:
                    attrs["saturate"] = sat
                out.append(Case(n, "Cast", ver, [("input", D.FLOAT, x)], [("output", t)],
                                attrs=attrs, note="spec table: +-Inf -> NaN for the FNUZ types "
                                "even with saturate=1; ORT gives +-FLT_MAX", ref=lambda a, t=t, s=sat: [
                                    D.round_to(t, a, saturate=s != 0)]))
            n = "cast_%d_float16_to_%s" % (ver, tn)
            xh = rand(n, D.FLOAT16, (3, 5), -10, 10)
            out.append(Case(n, "Cast", ver, [("input", D.FLOAT16, xh)], [("output", t)],
                            attrs={"to": t}, ref=lambda a, t=t: [D.round_to(t, a)]))
            # narrow -> wide
            for wt in (D.FLOAT, D.FLOAT16, D.BFLOAT16):
                n = "cast_%d_%s_to_%s" % (ver, tn, tname(wt))
                xv = rand(n, t, (2, 7), -6, 6)
                out.append(Case(n, "Cast", ver, [("input", t, xv)], [("output", wt)],
                                attrs={"to": wt}, ref=lambda a, wt=wt: [D.round_to(wt, a)]))
        else:  # int4 / uint4
            lo, hi = (-8, 7) if t == D.INT4 else (0, 15)
            n = "cast_%d_%s_to_float" % (ver, tn)
            out.append(Case(n, "Cast", ver, [("input", t, rand(n, t, (3, 5)))], [("output", D.FLOAT)],
                            attrs={"to": D.FLOAT}, ref=lambda a: [a.astype(np.float32)]))
            for src in (D.INT8, D.INT32, D.UINT8):
                n = "cast_%d_%s_to_%s" % (ver, tname(src), tn)
                xi = np.arange(-20, 21, 3) if src != D.UINT8 else np.arange(0, 40, 3)
                xi = xi.astype(D.NATIVE[src])
                # fixed point -> fixed point out of range: keep the low 4 bits (two's complement)
                out.append(Case(n, "Cast", ver, [("input", src, xi)], [("output", t)],
                                attrs={"to": t}, ref=lambda a, lo=lo: [
                                    (((a.astype(np.int64) - lo) & 0xF) + lo)]))
            n = "cast_%d_float_to_%s" % (ver, tn)
            # integral values only: the spec leaves the rounding of fractions to int4 open
            xf = np.array([lo, hi, 0.0, 1.0, -2.0 if lo else 2.0, 5.0, hi - 1], dtype=np.float32)
            out.append(Case(n, "Cast", ver, [("input", D.FLOAT, xf)], [("output", t)],
                            attrs={"to": t}, ref=lambda a: [a]))
            for wt in (D.INT8, D.INT64, D.FLOAT16, D.BOOL):
                n = "cast_%d_%s_to_%s" % (ver, tn, tname(wt))
                out.append(Case(n, "Cast", ver, [("input", t, rand(n, t, (2, 5)))], [("output", wt)],
                                attrs={"to": wt}, ref=lambda a, wt=wt: [
                                    a.astype(D.LOGICAL[wt]) if wt != D.FLOAT16 else
                                    a.astype(np.float32)]))
    # CastLike: target type from the second input
    for t in narrow_types:
        n = "castlike_%d_float_to_%s" % (ver, tname(t))
        x = rand(n, D.FLOAT, (2, 6), -5, 5)
        if t in (D.INT4, D.UINT4):
            x = np.round(x).astype(np.float32) + (8 if t == D.UINT4 else 0)
            x = np.clip(x, 0, 15) if t == D.UINT4 else np.clip(x, -8, 7)
        like = rand(n, t, (1,), salt="like")
        ref = (lambda a, l, t=t: [D.round_to(t, a)]) if t in D.FLOAT_TYPES else \
            (lambda a, l: [a])
        out.append(Case(n, "CastLike", ver, [("input", D.FLOAT, x), ("target_type", t, like)],
                        [("output", t)], ref=ref))
        n = "castlike_%d_%s_to_float" % (ver, tname(t))
        out.append(Case(n, "CastLike", ver, [("input", t, rand(n, t, (3, 3))),
                                             ("target_type", D.FLOAT, np.zeros(1, np.float32))],
                        [("output", D.FLOAT)], ref=lambda a, l: [a.astype(np.float32)]))
        if t in F8:
            n = "castlike_%d_float_to_%s_no_saturate" % (ver, tname(t))
            out.append(Case(n, "CastLike", ver, [("input", D.FLOAT, SPECIALS),
                                                 ("target_type", t, like)], [("output", t)],
                            attrs={"saturate": 0},
                            ref=lambda a, l, t=t: [D.round_to(t, a, saturate=False)]))
    return out


def new_type_cases(ver, types):
    """Constant, ConstantOfShape and the shape/data-movement operators on the new types."""
    out = []
    for t in types:
        tn = tname(t)
        v = rand("const%d%s" % (ver, tn), t, (2, 5))
        out.append(Case("constant_%d_%s" % (ver, tn), "Constant", ver, [], [("values", t)],
                        attrs={"value": D.encode("value", t, v)}, ref=lambda v=v: [v]))
        out.append(passthrough("identity_%d_%s" % (ver, tn), "Identity", ver, t, (3, 5),
                               lambda x: x))
        out.append(passthrough("reshape_%d_%s" % (ver, tn), "Reshape", ver, t, (2, 3, 5),
                               lambda x, s: x.reshape(5, 6),
                               extra_inputs=[("shape", D.INT64, i64(5, -1))]))
        out.append(passthrough("reshape_%d_%s_allowzero" % (ver, tn), "Reshape", ver, t, (0, 3),
                               lambda x, s: x.reshape(3, 0),
                               extra_inputs=[("shape", D.INT64, i64(3, 0))],
                               attrs={"allowzero": 1}))
        x = rand("shape%d%s" % (ver, tn), t, (2, 3, 5, 1))
        out.append(Case("shape_%d_%s" % (ver, tn), "Shape", ver, [("data", t, x)],
                        [("shape", D.INT64)], ref=lambda x: [i64(*x.shape)]))
        out.append(Case("shape_%d_%s_start_end" % (ver, tn), "Shape", ver, [("data", t, x)],
                        [("shape", D.INT64)], attrs={"start": -3, "end": -1},
                        ref=lambda x: [i64(*x.shape[1:3])]))
        out.append(Case("size_%d_%s" % (ver, tn), "Size", ver, [("data", t, x)],
                        [("size", D.INT64)], ref=lambda x: [np.array(x.size, np.int64)]))
        out += control_flow(ver, t)
        if ver >= 21:
            out.append(passthrough("flatten_%d_%s" % (ver, tn), "Flatten", ver, t, (2, 3, 5),
                                   lambda x: x.reshape(6, 5), attrs={"axis": 2}))
            out.append(passthrough("squeeze_%d_%s" % (ver, tn), "Squeeze", ver, t, (3, 1, 5, 1),
                                   lambda x, a: x.reshape(3, 5),
                                   extra_inputs=[("axes", D.INT64, i64(1, -1))]))
            out.append(passthrough("unsqueeze_%d_%s" % (ver, tn), "Unsqueeze", ver, t, (3, 5),
                                   lambda x, a: x.reshape(1, 3, 5, 1),
                                   extra_inputs=[("axes", D.INT64, i64(0, -1))]))
            out.append(passthrough("transpose_%d_%s" % (ver, tn), "Transpose", ver, t, (2, 3, 5),
                                   lambda x: x.transpose(2, 0, 1), attrs={"perm": [2, 0, 1]}))
            out.append(passthrough("transpose_%d_%s_default" % (ver, tn), "Transpose", ver, t,
                                   (3, 7), lambda x: x.T))
            cv = rand("cos%d%s" % (ver, tn), t, (1,))
            out.append(Case("constantofshape_%d_%s" % (ver, tn), "ConstantOfShape", ver,
                            [("input", D.INT64, i64(3, 5))], [("output", t)],
                            attrs={"value": D.encode("value", t, cv)},
                            ref=lambda s, cv=cv: [np.full((3, 5), cv[0], dtype=cv.dtype)]))
            out.append(passthrough("pad_%d_%s" % (ver, tn), "Pad", ver, t, (3, 5),
                                   lambda x, p: np.pad(x, [(1, 0), (0, 2)],
                                                       constant_values=x.dtype.type(0)),
                                   extra_inputs=[("pads", D.INT64, i64(1, 0, 0, 2))]))
            out.append(passthrough("pad_%d_%s_edge" % (ver, tn), "Pad", ver, t, (3, 5),
                                   lambda x, p: np.pad(x, [(0, 1), (2, 1)], mode="edge"),
                                   extra_inputs=[("pads", D.INT64, i64(0, 2, 1, 1))],
                                   attrs={"mode": "edge"}))
    return out


def control_flow(ver, t):
    tn = tname(t)
    out = []
    x = rand("cf%d%s" % (ver, tn), t, (2, 3))
    y = rand("cf%d%s" % (ver, tn), t, (2, 3), salt="y")
    then_g = helper.make_graph([node("Identity", ["x"], ["t_out"])], "then", [], [vinfo("t_out", t)])
    else_g = helper.make_graph([node("Identity", ["y"], ["e_out"])], "else", [], [vinfo("e_out", t)])
    for cond in (True, False):
        n = "if_%d_%s_%s" % (ver, tn, "then" if cond else "else")
        out.append(Case(n, "If", ver, [("cond", D.BOOL, np.array(cond)), ("x", t, x), ("y", t, y)],
                        [("z", t)], nodes=[node("If", ["cond"], ["z"], then_branch=then_g,
                                                else_branch=else_g)],
                        ref=lambda c, x, y: [x if c else y]))
    # Loop: carries v through 3 iterations and stacks it as a scan output
    body = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"]), node("Identity", ["v_in"], ["v_out"]),
         node("Identity", ["v_in"], ["scan_out"])], "body",
        [vinfo("iter", D.INT64, []), vinfo("cond_in", D.BOOL, []), vinfo("v_in", t)],
        [vinfo("cond_out", D.BOOL, []), vinfo("v_out", t), vinfo("scan_out", t)])
    n = "loop_%d_%s" % (ver, tn)
    out.append(Case(n, "Loop", ver, [("M", D.INT64, np.array(3, np.int64)),
                                     ("cond", D.BOOL, np.array(True)), ("v", t, x)],
                    [("v_final", t), ("scan", t)],
                    nodes=[node("Loop", ["M", "cond", "v"], ["v_final", "scan"], body=body)],
                    ref=lambda m, c, v: [v, np.stack([v] * 3)]))
    # Scan: state_out = x_t, y_t = state (shifts the sequence by one)
    sbody = helper.make_graph(
        [node("Identity", ["x_t"], ["state_out"]), node("Identity", ["state_in"], ["y_t"])],
        "scan_body", [vinfo("state_in", t, [3]), vinfo("x_t", t, [3])],
        [vinfo("state_out", t, [3]), vinfo("y_t", t, [3])])
    n = "scan_%d_%s" % (ver, tn)
    s0 = rand(n, t, (3,), salt="s0")
    seq = rand(n, t, (4, 3), salt="seq")
    out.append(Case(n, "Scan", ver, [("init", t, s0), ("seq", t, seq)], [("final", t), ("ys", t)],
                    nodes=[node("Scan", ["init", "seq"], ["final", "ys"], body=sbody,
                                num_scan_inputs=1)],
                    ref=lambda s0, seq: [seq[-1], np.concatenate([s0[None], seq[:-1]])]))
    return out
