#!/usr/bin/python3
"""Fits the erfc polynomial of the GELU kernels (src/kernels/activation/gelu_simd_inl.h,
kErfcPoly; docs/contrib-ops.md "GELU kernels"):

    erfc(z) = t * exp(-z^2 + P(t)),  t = 1 / (1 + z / 2),  z in [0, 9.5],

P of degree 9 by iteratively reweighted least squares (weights grow where the error is
largest, approaching the minimax fit) on 400001 points, in double against math.erfc. Prints
the coefficients as float literals, the fit's maximum error in the exponent (= relative error of
erfc) and that of the f32 evaluation the kernels do (coefficients rounded to f32, Horner with
fused multiply-adds, z^2 split exactly into z2 + err).

usage: /usr/bin/python3 scripts/fit_gelu_erfc.py
"""
import math

import numpy as np


def fit(degree=9, z_max=9.5, points=400001, rounds=60):
    z = np.linspace(0, z_max, points)
    t = 1 / (1 + 0.5 * z)
    target = np.log(np.array([math.erfc(v) for v in z]) / t) + z * z
    v = np.vander(t, degree + 1, increasing=True)
    w = np.ones_like(t)
    for _ in range(rounds):
        c, *_ = np.linalg.lstsq(v * w[:, None], target * w, rcond=None)
        e = np.abs(v @ c - target)
        w = w * (1 + 0.5 * e / e.max())
    return c, np.abs(v @ c - target).max()


def f32_error(c, z_max=9.4):
    f32 = np.float32
    c32 = c.astype(f32)
    z = np.linspace(0, z_max, 300001).astype(f32)
    t = (f32(1) / (f32(1) + f32(0.5) * z)).astype(f32)
    p = np.full_like(t, c32[-1])
    for ci in c32[-2::-1]:
        p = (p.astype(np.float64) * t + ci).astype(f32)  # one rounding: a fused multiply-add
    z2 = (z * z).astype(f32)
    err = (z.astype(np.float64) ** 2 - z2).astype(f32)
    e = np.exp(-z2.astype(np.float64) + (p - err).astype(np.float64))
    got = (t * e.astype(f32)).astype(f32)
    want = np.array([math.erfc(float(v)) for v in z])
    ok = want > 1e-37
    return np.abs(got[ok] / want[ok] - 1).max()


def main():
    c, fit_err = fit()
    print("kErfcPoly = {" + ", ".join("%.9ef" % v for v in c.astype(np.float32)) + "}")
    print("fit: max |exponent error| = %.3g" % fit_err)
    print("f32 evaluation: max relative error of erfc = %.3g" % f32_error(c))


if __name__ == "__main__":
    main()
