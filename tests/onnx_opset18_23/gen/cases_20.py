"""Operator versions added or changed in opset 20."""
import math
import re
import struct
import zlib

import numpy as np

import dtypes as D
from mk import Case, rand, rng, f64, i64, tname, unary
from refs22 import grid_sample_nearest_ref


def affine_grid_ref(theta, size, align):
    spatial = list(size[2:])
    axes = []
    for n in reversed(spatial):  # x (width) first
        if align:
            axes.append(np.linspace(-1, 1, n) if n > 1 else np.zeros(1))
        else:
            axes.append((2 * np.arange(n) + 1) / n - 1)
    mesh = np.meshgrid(*axes[::-1], indexing="ij")  # D/H/W order
    coords = np.stack([m for m in mesh[::-1]] + [np.ones_like(mesh[0])], axis=-1)
    return np.einsum("...k,njk->n...j", coords, theta)


def affine_grid():
    out = []
    for tag, t, theta_shape, size, align in [("2d", D.FLOAT, (2, 2, 3), (2, 3, 5, 4), 0),
                                             ("2d_align_corners", D.FLOAT, (1, 2, 3), (1, 1, 3, 7), 1),
                                             ("3d", D.FLOAT, (1, 3, 4), (1, 2, 3, 4, 5), 0),
                                             ("3d_align_corners", D.DOUBLE, (2, 3, 4), (2, 1, 2, 3, 3), 1),
                                             ("2d_float16", D.FLOAT16, (1, 2, 3), (1, 1, 4, 3), 0),
                                             ("2d_bfloat16", D.BFLOAT16, (1, 2, 3), (1, 1, 3, 3), 1)]:
        n = "affine_grid_20_" + tag
        theta = rand(n, t, theta_shape, -1, 1)
        out.append(Case(n, "AffineGrid", 20, [("theta", t, theta), ("size", D.INT64, i64(*size))],
                        [("grid", t)], attrs={"align_corners": align},
                        promote=t in (D.FLOAT16, D.BFLOAT16),
                        ref=lambda th, s, a=align: [affine_grid_ref(f64(th), list(s), a)]))
    return out


def dft_ref(x, dft_length=None, axis=-2, inverse=0, onesided=0):
    axis = axis % x.ndim
    c = x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)
    n = dft_length if dft_length is not None else (
        2 * (c.shape[axis] - 1) if onesided and inverse else c.shape[axis])
    if onesided and not inverse:
        y = np.fft.rfft(c.real, n=n, axis=axis)
    elif onesided and inverse:
        r = np.fft.irfft(c, n=n, axis=axis)
        return r[..., None]
    elif inverse:
        y = np.fft.ifft(c, n=n, axis=axis)
    else:
        y = np.fft.fft(c, n=n, axis=axis)
    return np.stack([y.real, y.imag], axis=-1)


def dft():
    out = []
    specs = [("real_axis_input", D.FLOAT, (2, 7, 1), None, 1, 0, 0),
             ("complex", D.FLOAT, (3, 5, 2), None, None, 0, 0),
             ("inverse", D.FLOAT, (2, 6, 2), None, 1, 1, 0),
             ("onesided", D.FLOAT, (2, 9, 1), None, -2, 0, 1),
             ("dft_length_pad", D.FLOAT, (1, 5, 1), 8, 1, 0, 0),
             ("dft_length_truncate", D.DOUBLE, (1, 9, 2), 6, 1, 0, 0),
             ("axis_0", D.FLOAT, (5, 3, 2), None, 0, 0, 0),
             ("irfft", D.FLOAT, (2, 4, 2), None, 1, 1, 1),
             ("float16", D.FLOAT16, (2, 4, 2), None, 1, 0, 0),
             ("bfloat16", D.BFLOAT16, (1, 6, 1), None, 1, 0, 0)]
    for tag, t, shape, length, axis, inv, one in specs:
        n = "dft_20_" + tag
        x = rand(n, t, shape, -2, 2)
        ins, names = [("input", t, x)], ["input"]
        if length is not None:
            ins.append(("dft_length", D.INT64, np.array(length, np.int64)))
            names.append("dft_length")
        if axis is not None:
            if length is None:
                names.append("")
            ins.append(("axis", D.INT64, np.array(axis, np.int64)))
            names.append("axis")
        out.append(Case(n, "DFT", 20, ins, [("output", t)], attrs={"inverse": inv, "onesided": one},
                        node_inputs=names, promote=t in (D.FLOAT16, D.BFLOAT16),
                        tol=(1e-3, 1e-4) if t == D.FLOAT else None, prefer_ref=True,
                        note="float64 numpy reference: ORT's float32 DFT leaves rounding noise "
                             "(~1e-6) at outputs that are exactly 0",
                        ref=lambda x, *r, L=length, a=axis, i=inv, o=one:
                        [dft_ref(f64(x), L, -2 if a is None else a, i, o)]))
    return out


def gelu():
    erf = np.vectorize(math.erf)
    exact = lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))  # noqa: E731
    tanh = lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))  # noqa
    out = []
    for t in (D.FLOAT, D.DOUBLE, D.FLOAT16, D.BFLOAT16):
        # |x| <= 3: beyond it 1 + tanh(..) cancels in float32 and the comparison would judge
        # rounding of outputs near 1e-6 rather than the operator
        out.append(unary("gelu_20_%s" % tname(t), "Gelu", 20, t, (3, 7), exact, lo=-3, hi=3))
        out.append(unary("gelu_20_tanh_%s" % tname(t), "Gelu", 20, t, (2, 9), tanh,
                         attrs={"approximate": "tanh"}, lo=-3, hi=3))
    return out


def grid_sample(ver, types):
    out = []
    specs = [("linear", (1, 2, 4, 5), (1, 3, 6, 2), {"mode": "linear"}),
             ("nearest_border", (1, 1, 5, 4), (1, 4, 3, 2), {"mode": "nearest",
                                                              "padding_mode": "border"}),
             ("cubic_align_corners", (1, 1, 4, 4), (1, 3, 3, 2), {"mode": "cubic",
                                                                 "align_corners": 1}),
             ("linear_reflection", (2, 1, 3, 5), (2, 2, 4, 2), {"mode": "linear",
                                                                "padding_mode": "reflection"}),
             ("3d_linear", (1, 2, 3, 4, 5), (1, 2, 3, 2, 3), {"mode": "linear"}),
             ("3d_nearest_align_corners", (1, 1, 3, 3, 4), (1, 2, 2, 3, 3),
              {"mode": "nearest", "align_corners": 1})]
    for t in types:
        for tag, xs, gs, attrs in specs:
            if t != D.FLOAT and tag not in ("linear", "3d_linear"):
                continue
            n = "gridsample_%d_%s_%s" % (ver, tag, tname(t))
            gt = t if t in (D.FLOAT, D.DOUBLE, D.FLOAT16, D.BFLOAT16) else D.FLOAT
            ref = None
            if t in D.INT_TYPES:  # integer data: nearest mode keeps values exact
                n = n.replace("linear", "nearest")
                attrs = dict(attrs, mode="nearest")
                ref = lambda x, g, a=attrs: [grid_sample_nearest_ref(x, g, 0)]  # noqa: E731
            out.append(Case(n, "GridSample", ver, [("X", t, rand(n, t, xs, -3, 3)),
                                                   ("grid", gt, rand(n, gt, gs, -1.2, 1.2, salt="g"))],
                            [("Y", t)], attrs=attrs, promote=t in (D.FLOAT16, D.BFLOAT16), ref=ref))
    return out


def _png(pixels, color_type):
    h, w = pixels.shape[:2]
    raw = b"".join(b"\x00" + pixels[i].tobytes() for i in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _bmp(pixels):
    h, w = pixels.shape[:2]
    row = (w * 3 + 3) & ~3
    body = b"".join(pixels[i][:, ::-1].tobytes().ljust(row, b"\x00") for i in range(h - 1, -1, -1))
    header = b"BM" + struct.pack("<IHHI", 54 + len(body), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(body), 2835, 2835, 0, 0)
    return header + info + body


def image_decoder():
    out = []
    r = rng("image_decoder")
    rgb = r.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    gray = r.integers(0, 256, size=(6, 3), dtype=np.uint8)
    streams = [("png_rgb", _png(rgb, 2), "RGB", rgb),
               ("png_bgr", _png(rgb, 2), "BGR", rgb[..., ::-1]),
               ("png_grayscale", _png(gray, 0), "Grayscale", gray[..., None]),
               ("bmp_rgb", _bmp(rgb), "RGB", rgb),
               ("ppm_rgb", b"P6\n7 5\n255\n" + rgb.tobytes(), "RGB", rgb),
               ("pgm_grayscale", b"P5\n3 6\n255\n" + gray.tobytes(), "Grayscale", gray[..., None])]
    for tag, data, fmt, want in streams:
        n = "image_decoder_20_" + tag
        arr = np.frombuffer(data, dtype=np.uint8).copy()
        out.append(Case(n, "ImageDecoder", 20, [("data", D.UINT8, arr)], [("output", D.UINT8)],
                        attrs={"pixel_format": fmt}, ref=lambda d, want=want: [want],
                        note="lossless image written by the generator: the decoded pixels are "
                             "the generator's pixels"))
    return out


def isinf_isnan():
    out = []
    specials = np.array([1.0, -2.5, np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0], np.float32)
    for t in (D.FLOAT, D.FLOAT16, D.BFLOAT16, D.DOUBLE, D.F8E4M3FN, D.F8E4M3FNUZ, D.F8E5M2,
              D.F8E5M2FNUZ):
        tn = tname(t)
        x = D.round_to(t, specials).astype(D.LOGICAL[t]).reshape(2, 4)  # as Cast would store them
        out.append(Case("isnan_20_%s" % tn, "IsNaN", 20, [("X", t, x)], [("Y", D.BOOL)],
                        ref=lambda x: [np.isnan(x)]))
        out.append(Case("isinf_20_%s" % tn, "IsInf", 20, [("X", t, x)], [("Y", D.BOOL)],
                        ref=lambda x: [np.isinf(x)]))
        if t in (D.FLOAT, D.F8E5M2, D.BFLOAT16):
            out.append(Case("isinf_20_%s_negative_only" % tn, "IsInf", 20, [("X", t, x)],
                            [("Y", D.BOOL)], attrs={"detect_positive": 0},
                            ref=lambda x: [np.isneginf(x)]))
            out.append(Case("isinf_20_%s_positive_only" % tn, "IsInf", 20, [("X", t, x)],
                            [("Y", D.BOOL)], attrs={"detect_negative": 0},
                            ref=lambda x: [np.isposinf(x)]))
    return out


def strings():
    out = []
    S = lambda *v: np.array(v, dtype=object)  # noqa: E731
    for tag, pat, xs in [("simple", "[a-z]+[0-9]*", S("abc", "abc12", "ab1c", "", "ABC")),
                         ("alternation", "(ab|cd)+", S("abab", "abcd", "abc", "cdcdab").reshape(2, 2)),
                         ("email", r"[\w.]+@[a-z]+\.com", S("a.b@x.com", "a@x.org", "@x.com")),
                         ("utf8", "h.llo", S("héllo", "hello", "hxllo!"))]:
        n = "regex_full_match_20_" + tag
        out.append(Case(n, "RegexFullMatch", 20, [("X", D.STRING, xs)], [("Y", D.BOOL)],
                        attrs={"pattern": pat},
                        ref=lambda x, p=pat: [np.vectorize(lambda s: re.fullmatch(p, s) is not None,
                                                           otypes=[bool])(x)]))
    cat = np.vectorize(lambda a, b: a + b, otypes=[object])
    for tag, a, b in [("same_shape", S("a", "bc", ""), S("x", "", "yz")),
                      ("broadcast", S("a", "b", "c", "d", "e", "f").reshape(2, 3), S("1", "2", "3")),
                      ("scalar", S("pre"), S("x", "yy")),
                      ("utf8", S("é", "ü"), S("ß", "-"))]:
        n = "string_concat_20_" + tag
        out.append(Case(n, "StringConcat", 20, [("X", D.STRING, a.reshape(a.shape or ())),
                                                ("Y", D.STRING, b)], [("Z", D.STRING)],
                        ref=lambda a, b: [cat(a, b)]))

    def split_ref(x, delim, maxsplit):
        parts = [s.split(delim or None, -1 if maxsplit is None else maxsplit) for s in x.reshape(-1)]
        width = max([len(p) for p in parts] + [0])
        y = np.array([p + [""] * (width - len(p)) for p in parts], dtype=object)
        y = y.reshape(x.shape + (width,))
        z = np.array([len(p) for p in parts], np.int64).reshape(x.shape)
        return [y, z]
    for tag, xs, delim, maxsplit in [("delimiter", S("a,b,c", "d,,e", "f"), ",", None),
                                     ("maxsplit", S("1-2-3-4", "5-6", "7"), "-", 2),
                                     ("whitespace", S("  hello  world ", "a b", ""), None, None),
                                     ("multichar_delimiter_2d", S("ab::cd", "x", "::", "p::q::r")
                                      .reshape(2, 2), "::", None),
                                     ("whitespace_maxsplit", S("a b  c d"), None, 1)]:
        n = "string_split_20_" + tag
        attrs = {}
        if delim:
            attrs["delimiter"] = delim
        if maxsplit is not None:
            attrs["maxsplit"] = maxsplit
        out.append(Case(n, "StringSplit", 20, [("X", D.STRING, xs)], [("Y", D.STRING), ("Z", D.INT64)],
                        attrs=attrs or None, ref=lambda x, d=delim, m=maxsplit: split_ref(x, d, m)))
    return out


def constant_of_shape_20():
    out = []
    for t in (D.BFLOAT16, D.F8E4M3FN, D.F8E4M3FNUZ, D.F8E5M2, D.F8E5M2FNUZ, D.FLOAT):
        v = rand("cos20" + tname(t), t, (1,), 1, 3)
        out.append(Case("constantofshape_20_%s" % tname(t), "ConstantOfShape", 20,
                        [("input", D.INT64, i64(2, 3, 1))], [("output", t)],
                        attrs={"value": D.encode("value", t, v)},
                        ref=lambda s, v=v: [np.full((2, 3, 1), v[0], np.float32)]))
    return out
