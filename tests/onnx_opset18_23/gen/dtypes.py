"""ONNX element types as numpy values, including the types newer than python3-onnx 1.12 knows.

A *logical* array holds the values of a tensor in a numpy type that represents them exactly:
float32 for float16/bfloat16/float8/float4 (values must be representable in the element type),
int8/uint8 for int4/uint4, object (str) for strings, the native numpy type otherwise. encode()
turns a logical array into a TensorProto (raw_data, or string_data for strings); decode() reads
one back. round_to() rounds float values to an element type as the Cast spec describes (RNE,
with or without saturation for the 8-bit and 4-bit float types).
"""
import numpy as np
from onnx import TensorProto

FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = 1, 2, 3, 4, 5, 6, 7, 8, 9
FLOAT16, DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = 10, 11, 12, 13, 14, 15, 16
F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, UINT4, INT4, FLOAT4E2M1 = 17, 18, 19, 20, 21, 22, 23

NAMES = {FLOAT: "float", UINT8: "uint8", INT8: "int8", UINT16: "uint16", INT16: "int16",
         INT32: "int32", INT64: "int64", STRING: "string", BOOL: "bool", FLOAT16: "float16",
         DOUBLE: "double", UINT32: "uint32", UINT64: "uint64", COMPLEX64: "complex64",
         COMPLEX128: "complex128", BFLOAT16: "bfloat16", F8E4M3FN: "float8e4m3fn",
         F8E4M3FNUZ: "float8e4m3fnuz", F8E5M2: "float8e5m2", F8E5M2FNUZ: "float8e5m2fnuz",
         UINT4: "uint4", INT4: "int4", FLOAT4E2M1: "float4e2m1"}
BY_NAME = {v: k for k, v in NAMES.items()}

NATIVE = {FLOAT: np.float32, UINT8: np.uint8, INT8: np.int8, UINT16: np.uint16,
          INT16: np.int16, INT32: np.int32, INT64: np.int64, BOOL: np.bool_,
          FLOAT16: np.float16, DOUBLE: np.float64, UINT32: np.uint32, UINT64: np.uint64,
          COMPLEX64: np.complex64, COMPLEX128: np.complex128}
LOGICAL = dict(NATIVE)
LOGICAL.update({FLOAT16: np.float32, BFLOAT16: np.float32, F8E4M3FN: np.float32,
                F8E4M3FNUZ: np.float32, F8E5M2: np.float32, F8E5M2FNUZ: np.float32,
                FLOAT4E2M1: np.float32, UINT4: np.uint8, INT4: np.int8, STRING: object})
FLOAT_TYPES = (FLOAT16, FLOAT, DOUBLE, BFLOAT16, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ,
               FLOAT4E2M1)
SMALL_FLOATS = (BFLOAT16, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, FLOAT4E2M1)
INT_TYPES = (UINT8, INT8, UINT16, INT16, INT32, INT64, UINT32, UINT64, UINT4, INT4)


def _minifloat_table(exp_bits, man_bits, bias, kind):
    """Value of every code of an 8- or 4-bit float format (NaN where the code is NaN)."""
    n = 1 + exp_bits + man_bits
    vals = np.zeros(1 << n, dtype=np.float64)
    for code in range(1 << n):
        sign = -1.0 if code >> (n - 1) else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        if e == 0:
            v = m / (1 << man_bits) * 2.0 ** (1 - bias)
        else:
            v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        vals[code] = sign * v
        emax = (1 << exp_bits) - 1
        if kind == "fn" and e == emax and m == (1 << man_bits) - 1:
            vals[code] = np.nan          # E4M3FN: S.1111.111 is NaN, no infinities
        if kind == "ieee" and e == emax:
            vals[code] = sign * np.inf if m == 0 else np.nan
        if kind == "fnuz" and code == 1 << (n - 1):
            vals[code] = np.nan          # FNUZ: the negative-zero code is the only NaN
    return vals


TABLES = {F8E4M3FN: _minifloat_table(4, 3, 7, "fn"),
          F8E4M3FNUZ: _minifloat_table(4, 3, 8, "fnuz"),
          F8E5M2: _minifloat_table(5, 2, 15, "ieee"),
          F8E5M2FNUZ: _minifloat_table(5, 2, 16, "fnuz"),
          FLOAT4E2M1: _minifloat_table(2, 1, 1, "none")}
MAX_FINITE = {t: float(np.nanmax(np.where(np.isinf(v), np.nan, v))) for t, v in TABLES.items()}
NAN_CODE = {F8E4M3FN: 0x7F, F8E4M3FNUZ: 0x80, F8E5M2: 0x7F, F8E5M2FNUZ: 0x80}


def _encode_minifloat(t, x, saturate=True):
    """Codes of float values x in format t: RNE, saturation per the Cast spec tables."""
    table = TABLES[t]
    nbits = 4 if t == FLOAT4E2M1 else 8
    sign_bit = 1 << (nbits - 1)
    pos = sorted((v, c) for c, v in enumerate(table) if c < sign_bit and np.isfinite(v))
    pv = [v for v, _ in pos] + [pos[-1][0] + (pos[-1][0] - pos[-2][0])]  # one step past max
    pc = [c for _, c in pos] + [-1]                                        # -1: overflow
    nan = NAN_CODE.get(t, 0)
    out = np.zeros(np.shape(x), dtype=np.uint8)
    for i, v in np.ndenumerate(np.asarray(x, dtype=np.float64)):
        neg = bool(np.signbit(v))
        if np.isnan(v):
            out[i] = nan
            continue
        a = abs(v)
        if np.isinf(a):
            code = -1
        else:
            j = int(np.searchsorted(pv, a))
            if j == 0:
                code = pc[0]
            elif j >= len(pv):
                code = -1
            else:
                dlo, dhi = a - pv[j - 1], pv[j] - a
                even_hi = pc[j] == -1 or pc[j] % 2 == 0
                code = pc[j] if dhi < dlo or (dhi == dlo and even_hi) else pc[j - 1]
        if code == -1:  # out of range: saturate, or Inf (E5M2) / NaN (others)
            if t in (F8E4M3FNUZ, F8E5M2FNUZ) and np.isinf(a):
                out[i] = nan
                continue
            if saturate or t == FLOAT4E2M1:
                code = pc[-2]
            elif t == F8E5M2:
                code = 0x7C
            else:
                out[i] = nan | (sign_bit if neg and t == F8E4M3FN else 0)
                continue
        if code == 0 and t in (F8E4M3FNUZ, F8E5M2FNUZ):
            neg = False  # FNUZ formats have no negative zero
        out[i] = code | (sign_bit if neg else 0)
    return out


def round_to(t, x, saturate=True):
    """Float values x rounded to element type t, returned as float32 logical values."""
    x = np.asarray(x)
    if t == FLOAT:
        return x.astype(np.float32)
    if t == DOUBLE:
        return x.astype(np.float64)
    if t == FLOAT16:
        return x.astype(np.float16).astype(np.float32)
    if t == BFLOAT16:
        return bf16_bits_to_f32(f32_to_bf16_bits(x.astype(np.float32))).reshape(x.shape)
    return TABLES[t][_encode_minifloat(t, x, saturate)].astype(np.float32)


def f32_to_bf16_bits(x):
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(x)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), r).astype(np.uint16)


def bf16_bits_to_f32(b):
    return (np.asarray(b, dtype=np.uint32) << 16).view(np.float32)


def _pack4(codes):
    flat = np.asarray(codes, dtype=np.uint8).reshape(-1) & 0xF
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, np.uint8)])
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()


def _unpack4(raw, n):
    b = np.frombuffer(raw, dtype=np.uint8)
    out = np.empty(b.size * 2, dtype=np.uint8)
    out[0::2] = b & 0xF
    out[1::2] = b >> 4
    return out[:n]


def raw_bytes(t, x):
    """Raw little-endian bytes of logical array x as element type t (not for strings)."""
    x = np.asarray(x)
    if t in NATIVE:
        return np.ascontiguousarray(x.astype(NATIVE[t])).tobytes()
    if t == BFLOAT16:
        return f32_to_bf16_bits(x.astype(np.float32)).tobytes()
    if t in (UINT4, INT4):
        return _pack4(x.astype(np.int64) & 0xF)
    # logical values are representable: no saturation, so float8e5m2 +-Inf keeps its code
    codes = _encode_minifloat(t, x, saturate=False)
    if t == FLOAT4E2M1:
        return _pack4(codes)
    return codes.tobytes()


def encode(name, t, x):
    p = TensorProto()
    p.name = name
    p.data_type = t
    x = np.asarray(x, dtype=LOGICAL[t])
    p.dims.extend(int(d) for d in x.shape)
    if t == STRING:
        p.string_data.extend(s.encode("utf-8") for s in x.reshape(-1))
    else:
        p.raw_data = raw_bytes(t, x)
    return p


def decode(p):
    """(element type, logical array) of a TensorProto written by encode() or by ort_run.js."""
    t = p.data_type
    shape = tuple(p.dims)
    n = int(np.prod(shape)) if shape else 1
    if t == STRING:
        return t, np.array([s.decode("utf-8") for s in p.string_data], dtype=object).reshape(shape)
    raw = p.raw_data
    if t in NATIVE:
        return t, np.frombuffer(raw, dtype=NATIVE[t]).reshape(shape).copy()
    if t == BFLOAT16:
        return t, bf16_bits_to_f32(np.frombuffer(raw, np.uint16)).reshape(shape)
    if t == UINT4:
        return t, _unpack4(raw, n).reshape(shape)
    if t == INT4:
        u = _unpack4(raw, n).astype(np.int8)
        return t, np.where(u >= 8, u - 16, u).astype(np.int8).reshape(shape)
    codes = _unpack4(raw, n) if t == FLOAT4E2M1 else np.frombuffer(raw, np.uint8)
    return t, TABLES[t][codes].astype(np.float32).reshape(shape)


def representable(t, rng, shape, lo=-4.0, hi=4.0):
    """Random values of element type t in [lo, hi], exactly representable in t."""
    x = rng.uniform(lo, hi, size=shape)
    if t in FLOAT_TYPES:
        return round_to(t, x).astype(LOGICAL[t])
    if t == BOOL:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if t == INT4:
        return rng.integers(-8, 8, size=shape).astype(np.int8)
    if t == UINT4:
        return rng.integers(0, 16, size=shape).astype(np.uint8)
    if t == STRING:
        words = ["a", "bc", "def", "", "xyz", "q1", "hello", "Zz"]
        return np.array([words[i] for i in rng.integers(0, len(words), size=int(np.prod(shape)))],
                        dtype=object).reshape(shape)
    info = np.iinfo(NATIVE[t])
    return rng.integers(max(info.min, int(lo)), min(info.max, int(hi)) + 1,
                        size=shape).astype(NATIVE[t])
