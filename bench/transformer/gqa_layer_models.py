#!/usr/bin/python3
"""Writes the GroupQueryAttention benchmark models of docs/attention.md ("Operators"): one GQA
layer of a 2048-wide decoder (32 query heads, 8 KV heads, head size 64) as
OUT/<name>/model.onnx with OUT/<name>/data/input_N.pb, for `vtensor bench` and ONNX Runtime's
C API bench (vtensor-ort-bench) to time on the same inputs (bench/transformer/compare_gqa_layer.sh
runs both):

  gqa_decode_p511          decode: 1 token after 511 cached ones (present: 512 rows)
  gqa_decode_p511_rotary   the same with do_rotary (cos/sin cache of 1024 positions)
  gqa_prefill_s128         first prompt of 128 tokens
  gqa_prefill_s128_p511    128 tokens after 511 cached ones (chunked prefill, batch 1)

usage: /usr/bin/python3 bench/transformer/gqa_layer_models.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

N, KV, H = 32, 8, 64


def model(name, S, P, rotary):
    T = P + S
    f = TensorProto.FLOAT
    ins = [("query", f, [1, S, N * H]), ("key", f, [1, S, KV * H]), ("value", f, [1, S, KV * H])]
    if P:
        ins += [("past_key", f, [1, KV, P, H]), ("past_value", f, [1, KV, P, H])]
    ins += [("seqlens_k", TensorProto.INT32, [1]), ("total_sequence_length", TensorProto.INT32, [])]
    if rotary:
        ins += [("cos_cache", f, [1024, H // 2]), ("sin_cache", f, [1024, H // 2])]
    node_in = ["query", "key", "value", "past_key" if P else "", "past_value" if P else "",
               "seqlens_k", "total_sequence_length"] + (["cos_cache", "sin_cache"] if rotary else [])
    node = helper.make_node("GroupQueryAttention", node_in, ["output", "present_key", "present_value"],
                            domain="com.microsoft", num_heads=N, kv_num_heads=KV,
                            do_rotary=1 if rotary else 0)
    outs = [helper.make_tensor_value_info("output", f, [1, S, N * H]),
            helper.make_tensor_value_info("present_key", f, [1, KV, T, H]),
            helper.make_tensor_value_info("present_value", f, [1, KV, T, H])]
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    rng = np.random.default_rng(0)
    data = []
    for n, t, s in ins:
        if n == "seqlens_k":
            a = np.array([T - 1], np.int32)
        elif n == "total_sequence_length":
            a = np.array(T, np.int32)
        elif n in ("cos_cache", "sin_cache"):
            ang = np.arange(1024)[:, None] / (10000 ** (np.arange(H // 2) / (H // 2)))[None, :]
            a = (np.cos(ang) if n == "cos_cache" else np.sin(ang)).astype(np.float32)
        else:
            a = rng.standard_normal(s).astype(np.float32)
        data.append(numpy_helper.from_array(a, n))
    return m, data


def main():
    out = sys.argv[1]
    for name, S, P, rot in [("gqa_decode_p511", 1, 511, False),
                            ("gqa_decode_p511_rotary", 1, 511, True),
                            ("gqa_prefill_s128", 128, 0, False),
                            ("gqa_prefill_s128_p511", 128, 511, False)]:
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "data"), exist_ok=True)
        m, data = model(name, S, P, rot)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        for i, t in enumerate(data):
            with open(os.path.join(d, "data", "input_%d.pb" % i), "wb") as f:
                f.write(t.SerializeToString())
        print(d)


if __name__ == "__main__":
    main()
