"""numpy references for opset-22 operators that ONNX Runtime 1.30 does not run on CPU
(RoiAlign-22, MaxRoiPool-22, RNN/GRU/LSTM with layout=1, GridSample on integer data)."""
import math

import numpy as np


def _bilinear_corners(img, y, x):
    """(value, corner weights) sampling as RoiAlign does: points more than one pixel outside
    are 0, others are clamped to the image."""
    H, W = img.shape
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return []
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return [((1 - ly) * (1 - lx), img[y0, x0]), ((1 - ly) * lx, img[y0, x1]),
            (ly * (1 - lx), img[y1, x0]), (ly * lx, img[y1, x1])]


def roi_align_ref(x, rois, batch_indices, mode="avg", output_height=1, output_width=1,
                  sampling_ratio=0, spatial_scale=1.0, coordinate_transformation_mode="half_pixel"):
    half = coordinate_transformation_mode == "half_pixel"
    off = 0.5 if half else 0.0
    R, C = rois.shape[0], x.shape[1]
    y = np.zeros((R, C, output_height, output_width))
    for r in range(R):
        x1, y1, x2, y2 = (float(v) * spatial_scale - off for v in rois[r])
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / output_height, rw / output_width
        gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh / output_height))
        gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw / output_width))
        for c in range(C):
            img = x[int(batch_indices[r]), c]
            for ph in range(output_height):
                for pw in range(output_width):
                    vals = []
                    for iy in range(gh):
                        yy = y1 + ph * bh + (iy + 0.5) * bh / gh
                        for ix in range(gw):
                            xx = x1 + pw * bw + (ix + 0.5) * bw / gw
                            corners = _bilinear_corners(img, yy, xx)
                            if mode == "avg":
                                vals.append(sum(w * v for w, v in corners))
                            else:  # max of the weighted corners (what ORT's kernels compute)
                                vals.append(max([w * v for w, v in corners] or [0.0]))
                    if mode == "avg":
                        y[r, c, ph, pw] = sum(vals) / max(gh * gw, 1)
                    else:
                        y[r, c, ph, pw] = max(vals) if vals else 0.0
    return y


def max_roi_pool_ref(x, rois, pooled_shape, spatial_scale=1.0):
    ph_n, pw_n = pooled_shape
    R, C, H, W = rois.shape[0], x.shape[1], x.shape[2], x.shape[3]
    y = np.zeros((R, C, ph_n, pw_n))
    for r in range(R):
        b = int(rois[r, 0])
        x1, y1, x2, y2 = (int(math.floor(float(v) * spatial_scale + 0.5)) for v in rois[r, 1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(ph_n):
            hs = min(max(int(math.floor(ph * rh / ph_n)) + y1, 0), H)
            he = min(max(int(math.ceil((ph + 1) * rh / ph_n)) + y1, 0), H)
            for pw in range(pw_n):
                ws = min(max(int(math.floor(pw * rw / pw_n)) + x1, 0), W)
                we = min(max(int(math.ceil((pw + 1) * rw / pw_n)) + x1, 0), W)
                if he > hs and we > ws:
                    y[r, :, ph, pw] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return y


def _sig(v):
    return 1 / (1 + np.exp(-v))


def rnn_family_ref(op, X, W, R, B=None, seq_lens=None, h0=None, c0=None, hidden_size=None,
                   direction="forward", layout=0, clip=None, linear_before_reset=0):
    """Default activations (Sigmoid/Tanh/Tanh). Returns Y, Y_h (and Y_c for LSTM)."""
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    S, Bn, _ = X.shape
    H = hidden_size
    nd = W.shape[0]
    gates = W.shape[1] // H
    Y = np.zeros((S, nd, Bn, H))
    Yh = np.zeros((nd, Bn, H))
    Yc = np.zeros((nd, Bn, H))
    lens = np.full(Bn, S) if seq_lens is None else seq_lens
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    for d in range(nd):
        rev = direction == "reverse" or d == 1
        Wb = B[d, :gates * H] if B is not None else np.zeros(gates * H)
        Rb = B[d, gates * H:] if B is not None else np.zeros(gates * H)
        for b in range(Bn):
            h = h0[d, b] if h0 is not None else np.zeros(H)
            c = c0[d, b] if c0 is not None else np.zeros(H)
            steps = range(lens[b] - 1, -1, -1) if rev else range(lens[b])
            for t in steps:
                xw = W[d] @ X[t, b] + Wb
                hr = R[d] @ h + Rb
                if op == "RNN":
                    h = np.tanh(cl(xw + hr))
                elif op == "GRU":
                    z = _sig(cl(xw[:H] + hr[:H]))
                    r = _sig(cl(xw[H:2 * H] + hr[H:2 * H]))
                    if linear_before_reset:
                        hh = np.tanh(cl(xw[2 * H:] + r * hr[2 * H:]))
                    else:
                        hh = np.tanh(cl(xw[2 * H:] + R[d][2 * H:] @ (r * h) + Rb[2 * H:]))
                    h = (1 - z) * hh + z * h
                else:
                    g = xw + hr
                    i, o, f, cc = (cl(g[k * H:(k + 1) * H]) for k in range(4))
                    c = _sig(f) * c + _sig(i) * np.tanh(cc)
                    h = _sig(o) * np.tanh(c)
                Y[t, d, b] = h
            Yh[d, b], Yc[d, b] = h, c
    if layout:
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return [Y, Yh] + ([Yc] if op == "LSTM" else [])


def grid_sample_nearest_ref(x, grid, align_corners=0):
    """Nearest mode, zeros padding, any spatial rank; ties round half to even."""
    N, C = x.shape[:2]
    sp = x.shape[2:]
    out_sp = grid.shape[1:-1]
    y = np.zeros((N, C) + out_sp, dtype=x.dtype)
    for n in range(N):
        for pos in np.ndindex(*out_sp):
            g = grid[(n,) + pos]
            idx = []
            for k, size in enumerate(reversed(sp)):  # grid's last axis is x (W) first
                v = float(g[k])
                p = (v + 1) / 2 * (size - 1) if align_corners else ((v + 1) * size - 1) / 2
                idx.append(int(np.rint(p)))
            idx = idx[::-1]
            if all(0 <= i < s for i, s in zip(idx, sp)):
                y[(n, slice(None)) + pos] = x[(n, slice(None)) + tuple(idx)]
    return y


def pool_ref(x, kind, kernel_shape, strides=None, pads=None, dilations=None, auto_pad="NOTSET",
             ceil_mode=0, count_include_pad=0, p=2, **_):
    """AveragePool / MaxPool / LpPool over N-D windows, per the pooling output-shape rules."""
    nd = len(kernel_shape)
    insz = x.shape[2:]
    st = strides or [1] * nd
    dl = dilations or [1] * nd
    pd = list(pads or [0] * (2 * nd))
    eff = [(k - 1) * d + 1 for k, d in zip(kernel_shape, dl)]
    out = []
    for i in range(nd):
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-insz[i] // st[i])
            total = max((o - 1) * st[i] + eff[i] - insz[i], 0)
            small, big = total // 2, total - total // 2
            pd[i], pd[i + nd] = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        elif auto_pad == "VALID":
            o = -(-(insz[i] - eff[i] + 1) // st[i])
            pd[i] = pd[i + nd] = 0
        else:
            span = insz[i] + pd[i] + pd[i + nd] - eff[i]
            o = (-(-span // st[i]) if ceil_mode else span // st[i]) + 1
            if ceil_mode and (o - 1) * st[i] >= insz[i] + pd[i]:
                o -= 1  # a window may not start inside the end padding
        out.append(o)
    y = np.zeros(x.shape[:2] + tuple(out))
    for pos in np.ndindex(*out):
        idx, padded = [], 1
        for i in range(nd):
            coords = [pos[i] * st[i] - pd[i] + k * dl[i] for k in range(kernel_shape[i])]
            idx.append([c for c in coords if 0 <= c < insz[i]])
            padded *= sum(1 for c in coords if -pd[i] <= c < insz[i] + pd[i + nd])
        win = x[(slice(None), slice(None)) + np.ix_(*idx)] if all(idx) else None
        axes = tuple(range(2, 2 + nd))
        if kind == "avg":
            n = padded if count_include_pad else (win[0, 0].size if win is not None else 1)
            v = win.sum(axis=axes) / n if win is not None else 0.0
        elif kind == "max":
            v = win.max(axis=axes)
        else:
            v = (np.abs(win) ** p).sum(axis=axes) ** (1.0 / p)
        y[(slice(None), slice(None)) + pos] = v
    return y
