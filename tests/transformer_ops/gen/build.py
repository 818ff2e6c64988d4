"""Constructors shared by the case tables: one node with named optional inputs, inputs drawn
from numpy generators seeded by the case name, and references that see inputs by name."""
import zlib

import numpy as np

import dtypes as D
from case import Case, node

MS = {"com.microsoft": 1}


def rng(name, salt=""):
    return np.random.default_rng(zlib.crc32((name + salt).encode()))


def rand(name, t, shape, lo=-1.0, hi=1.0, salt=""):
    return D.representable(t, rng(name, salt), shape, lo, hi)


def rope_cache(name, t, positions, half):
    """cos / sin caches (positions, half) of a geometric frequency ladder, rounded to t."""
    inv = 1.0 / (10000.0 ** (np.arange(half) / max(half, 1)))
    ang = np.arange(positions)[:, None] * inv[None, :] * 0.9 + 0.05
    return D.round_to(t, np.cos(ang)), D.round_to(t, np.sin(ang))


def single(name, op, slots, inputs, outputs, attrs, ref=None, domain="com.microsoft", ort=True,
           note="", tol=None, prefer_ref=False, version=1):
    """One `op` node. slots: input names in operator order (absent ones included);
    inputs: {name: (elem type, array)} for the present ones; outputs: [(name, elem type)] with
    absent optional outputs named ''. ref(**inputs_by_name) -> list of output arrays."""
    names = [s if s in inputs else "" for s in slots]
    while names and names[-1] == "":
        names.pop()
    ins = [(n, inputs[n][0], inputs[n][1]) for n in names if n]
    outs = [(n, t) for n, t in outputs if n]
    wrapped = None
    if ref is not None:
        keys = [n for n in names if n]

        def wrapped(*arrays):
            return ref(**dict(zip(keys, arrays)))
    c = Case(name, op, version, ins, outs, attrs={k: v for k, v in attrs.items() if v is not None},
             ref=wrapped, ort=ort, note=note, tol=tol, prefer_ref=prefer_ref, domain=domain,
             opset=23 if domain else max(23, version), extra_opsets=MS if domain else None,
             node_inputs=names)
    c.nodes = [node(op, names, [n for n, _ in outputs], domain=domain,
                    **{k: v for k, v in attrs.items() if v is not None})]
    return c
