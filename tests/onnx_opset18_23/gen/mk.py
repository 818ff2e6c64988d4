"""Small constructors shared by the case tables (cases_*.py)."""
import zlib

import numpy as np

import dtypes as D
from case import Case, node  # noqa: F401  (re-exported for the case tables)


def rng(name):
    """Generator seeded by the case name: a case's data does not depend on table order."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def f64(x):
    return np.asarray(x, dtype=np.float64)


def rand(name, t, shape, lo=-4.0, hi=4.0, salt=""):
    return D.representable(t, rng(name + salt), shape, lo, hi)


def tname(t):
    return D.NAMES[t]


def unary(name, op, ver, t, shape, fn, attrs=None, lo=-3.0, hi=3.0, out_t=None, **kw):
    """X -> Y, reference fn(float64 x) rounded to the output type."""
    x = rand(name, t, shape, lo, hi)
    ot = out_t or t
    return Case(name, op, ver, [("X", t, x)], [("Y", ot)], attrs=attrs,
                ref=lambda a: [np.asarray(fn(f64(a)) if ot in D.FLOAT_TYPES else fn(a))],
                promote=t in (D.BFLOAT16, D.FLOAT16), **kw)


def passthrough(name, op, ver, t, shape, out_fn, attrs=None, extra_inputs=(), **kw):
    """Data-movement operator on element type t: reference out_fn(x, *extra)."""
    x = rand(name, t, shape, -6, 6)
    ins = [("data", t, x)] + list(extra_inputs)
    return Case(name, op, ver, ins, [("out", t)], attrs=attrs,
                ref=lambda *a: [out_fn(*a)], **kw)


def i64(*v):
    return np.array(v, dtype=np.int64)
