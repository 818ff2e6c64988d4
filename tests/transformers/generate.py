#!/usr/bin/python3
"""Writes transformer test models in the form torch.onnx.export gives them, with inputs and
reference outputs.

usage: /usr/bin/python3 tests/transformers/generate.py --out DIR [--cases a,b,...] [--layers N]

Each case is DIR/<case>/model.onnx + test_data_set_0/{input,output}_N.pb (the layout of ONNX's
node tests, which `vtensor run --data`, `vtensor bench --data` and vtensor-ort-bench read).
The graphs are spelled node for node the way PyTorch's TorchScript exporter (opset 14-17, dynamic
batch and sequence axes, constant folding on) writes Hugging Face BERT and Llama modules: Linear
as MatMul with a pre-transposed initializer plus Add(bias, .); view/reshape shapes built from
Shape -> Gather -> Unsqueeze -> Concat; transpose_for_scores as Reshape + Transpose with the two
key transposes merged into one perm; scalars as Constant nodes; LayerNorm decomposed below opset
17; GELU through Erf (or the tanh form); the (1 - mask) * -10000 extended attention mask;
RMSNorm as Pow / ReduceMean / Add / Sqrt / Div(1, .) / Mul; rotary embedding as the
Slice / Neg / Concat rotate_half form with cos / sin gathered by position_ids; repeat_kv as
Unsqueeze / Expand / Reshape; SiLU as x * Sigmoid(x); the causal mask from ConstantOfShape /
Trilu / Where. docs/transformer-fusion.md lists the cases.

Reference outputs are computed by a separate numpy forward pass of the same weights (float64),
not by evaluating the graph, so a mistake in the graph shows up as a mismatch. Weights and inputs
come from numpy generators seeded per case: a rerun writes identical files.
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32_MIN = float(np.finfo(np.float32).min)


# ---------------------------------------------------------------------------------------------
# Graph builder: names and node forms as the TorchScript exporter writes them.
class Builder:
    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.inits = []
        self.counts = {}
        self.inputs = []
        self.outputs = []

    def _name(self, scope, op):
        key = (scope, op)
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return "%s/%s%s" % (scope, op, "" if n == 0 else "_%d" % n)

    def op(self, scope, op_type, inputs, n_out=1, **attrs):
        name = self._name(scope, op_type)
        outs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, scope, value, dtype):
        arr = np.array(value, dtype=dtype)
        return self.op(scope, "Constant", [], value=numpy_helper.from_array(arr))

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def dim(self, scope, x, i):
        """x.size(i): Shape -> Gather(Constant i) (a 0-d int64)."""
        shape = self.op(scope, "Shape", [x])
        return self.op(scope, "Gather", [shape, self.const(scope, i, np.int64)], axis=0)

    def unsq(self, scope, x, axes):
        if self.opset >= 13:
            return self.op(scope, "Unsqueeze", [x, self.const(scope, axes, np.int64)])
        return self.op(scope, "Unsqueeze", [x], axes=axes)

    def shape_of(self, scope, parts):
        """A shape list of 0-d int64 values and Python ints, as Concat(Unsqueeze(.), Constant)."""
        items = []
        for p in parts:
            items.append(self.const(scope, [p], np.int64) if isinstance(p, int)
                         else self.unsq(scope, p, [0]))
        return self.op(scope, "Concat", items, axis=0)

    def reduce_mean(self, scope, x):
        if self.opset >= 18:
            return self.op(scope, "ReduceMean", [x, self.const(scope, [-1], np.int64)], keepdims=1)
        return self.op(scope, "ReduceMean", [x], axes=[-1], keepdims=1)

    def linear(self, scope, x, w_t, bias, name_w):
        """nn.Linear on a 3-D input: MatMul(x, W^T as an initializer) and Add(bias, .)."""
        y = self.op(scope, "MatMul", [x, self.init(name_w, w_t)])
        if bias is None:
            return y
        return self.op(scope, "Add", [self.init(scope[1:].replace("/", ".") + ".bias", bias), y])

    def model(self, name):
        g = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, producer_name="pytorch", producer_version="2.1.0",
                              opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m


def layer_norm(b, scope, x, w, bias, eps):
    """nn.LayerNorm: LayerNormalization-17, or the decomposition of opsets below 17."""
    wn = b.init(scope[1:].replace("/", ".") + ".weight", w)
    bn = b.init(scope[1:].replace("/", ".") + ".bias", bias)
    if b.opset >= 17:
        return b.op(scope, "LayerNormalization", [x, wn, bn], axis=-1, epsilon=eps)
    mean = b.reduce_mean(scope, x)
    d = b.op(scope, "Sub", [x, mean])
    p = b.op(scope, "Pow", [d, b.const(scope, 2.0, np.float32)])
    var = b.reduce_mean(scope, p)
    a = b.op(scope, "Add", [var, b.const(scope, eps, np.float32)])
    s = b.op(scope, "Sqrt", [a])
    n = b.op(scope, "Div", [d, s])
    m = b.op(scope, "Mul", [n, wn])
    return b.op(scope, "Add", [m, bn])


def gelu(b, scope, x, form):
    if form == "erf":  # F.gelu: x * 0.5 * (1 + erf(x / sqrt(2)))
        d = b.op(scope, "Div", [x, b.const(scope, 1.4142135381698608, np.float32)])
        e = b.op(scope, "Erf", [d])
        a = b.op(scope, "Add", [e, b.const(scope, 1.0, np.float32)])
        m = b.op(scope, "Mul", [x, a])
        return b.op(scope, "Mul", [m, b.const(scope, 0.5, np.float32)])
    # NewGELUActivation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    h = b.op(scope, "Mul", [b.const(scope, 0.5, np.float32), x])
    p = b.op(scope, "Pow", [x, b.const(scope, 3.0, np.float32)])
    c = b.op(scope, "Mul", [b.const(scope, 0.044715, np.float32), p])
    s = b.op(scope, "Add", [x, c])
    k = b.op(scope, "Mul", [b.const(scope, math.sqrt(2.0 / math.pi), np.float32), s])
    t = b.op(scope, "Tanh", [k])
    a = b.op(scope, "Add", [b.const(scope, 1.0, np.float32), t])
    return b.op(scope, "Mul", [h, a])


# ---------------------------------------------------------------------------------------------
# numpy reference pieces (float64)
def np_layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def np_gelu(x, form):
    if form == "erf":
        return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def uniform(rng, shape, fan_in):
    a = math.sqrt(3.0 / fan_in)
    return rng.uniform(-a, a, size=shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# BERT / MiniLM encoder (transformers BertModel, eval mode).
def bert_case(cfg, rng):
    H, A, F, L, V = cfg["hidden"], cfg["heads"], cfg["ffn"], cfg["layers"], cfg["vocab"]
    D = H // A
    eps = 1e-12
    b = Builder(cfg["opset"])
    dyn = ["batch_size", "sequence_length"]
    for n in ("input_ids", "attention_mask", "token_type_ids"):
        b.inputs.append(helper.make_tensor_value_info(n, TensorProto.INT64, dyn))
    W = {}  # reference weights, float64

    def param(key, arr):
        W[key] = arr.astype(np.float64)
        return arr

    # Embeddings.
    s = "/embeddings"
    we = param("we", rng.normal(0, 0.5, (V, H)).astype(np.float32))
    pe = param("pe", rng.normal(0, 0.5, (cfg["max_pos"], H)).astype(np.float32))
    te = param("te", rng.normal(0, 0.5, (2, H)).astype(np.float32))
    x = b.op(s + "/word_embeddings", "Gather", [b.init("embeddings.word_embeddings.weight", we),
                                                "input_ids"])
    t = b.op(s + "/token_type_embeddings", "Gather",
             [b.init("embeddings.token_type_embeddings.weight", te), "token_type_ids"])
    x = b.op(s, "Add", [x, t])
    seq = b.dim(s, "input_ids", 1)
    pos_ids = b.init("embeddings.position_ids",
                     np.arange(cfg["max_pos"], dtype=np.int64)[None, :])
    pos = b.op(s, "Slice", [pos_ids, b.const(s, [0], np.int64), b.unsq(s, seq, [0]),
                            b.const(s, [1], np.int64), b.const(s, [1], np.int64)])
    p = b.op(s + "/position_embeddings", "Gather",
             [b.init("embeddings.position_embeddings.weight", pe), pos])
    x = b.op(s, "Add", [x, p])
    lw, lb = param("eln_w", 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32)), param(
        "eln_b", rng.uniform(-0.05, 0.05, H).astype(np.float32))
    h = layer_norm(b, s + "/LayerNorm", x, lw, lb, eps)

    # get_extended_attention_mask: (1.0 - mask[:, None, None, :].to(float)) * -10000.0
    m = b.unsq("", "attention_mask", [1])
    m = b.unsq("", m, [2])
    m = b.op("", "Cast", [m], to=TensorProto.FLOAT)
    m = b.op("", "Sub", [b.const("", 1.0, np.float32), m])
    ext = b.op("", "Mul", [m, b.const("", -10000.0, np.float32)])

    for li in range(L):
        s = "/encoder/layer.%d" % li
        sa = s + "/attention/self"
        proj = {}
        for nm in ("query", "key", "value"):
            w = param("%d%s_w" % (li, nm), uniform(rng, (H, H), H))
            bb = param("%d%s_b" % (li, nm), rng.uniform(-0.1, 0.1, H).astype(np.float32))
            y = b.linear(sa + "/" + nm, h, w, bb, "onnx::MatMul_%d%s" % (li, nm))
            # transpose_for_scores: view(x.size()[:-1] + (A, D)).permute(0, 2, 1, 3)
            shape = b.shape_of(sa, [b.dim(sa, y, 0), b.dim(sa, y, 1), A, D])
            r = b.op(sa, "Reshape", [y, shape])
            perm = [0, 2, 3, 1] if nm == "key" else [0, 2, 1, 3]
            proj[nm] = b.op(sa, "Transpose", [r], perm=perm)
        sc = b.op(sa, "MatMul", [proj["query"], proj["key"]])
        sc = b.op(sa, "Div", [sc, b.const(sa, float(math.sqrt(D)), np.float32)])
        sc = b.op(sa, "Add", [sc, ext])
        pr = b.op(sa, "Softmax", [sc], axis=-1)
        ctx = b.op(sa, "MatMul", [pr, proj["value"]])
        ctx = b.op(sa, "Transpose", [ctx], perm=[0, 2, 1, 3])
        shape = b.shape_of(sa, [b.dim(sa, ctx, 0), b.dim(sa, ctx, 1), H])
        ctx = b.op(sa, "Reshape", [ctx, shape])
        so = s + "/attention/output"
        w = param("%do_w" % li, uniform(rng, (H, H), H))
        bb = param("%do_b" % li, rng.uniform(-0.1, 0.1, H).astype(np.float32))
        y = b.linear(so + "/dense", ctx, w, bb, "onnx::MatMul_%do" % li)
        y = b.op(so, "Add", [y, h])
        h1 = layer_norm(b, so + "/LayerNorm", y,
                        param("%dln1_w" % li, 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32)),
                        param("%dln1_b" % li, rng.uniform(-0.05, 0.05, H).astype(np.float32)),
                        eps)
        si = s + "/intermediate"
        w = param("%di_w" % li, uniform(rng, (H, F), H))
        bb = param("%di_b" % li, rng.uniform(-0.1, 0.1, F).astype(np.float32))
        y = b.linear(si + "/dense", h1, w, bb, "onnx::MatMul_%di" % li)
        y = gelu(b, si + "/intermediate_act_fn", y, cfg["gelu"])
        so = s + "/output"
        w = param("%dd_w" % li, uniform(rng, (F, H), F))
        bb = param("%dd_b" % li, rng.uniform(-0.1, 0.1, H).astype(np.float32))
        y = b.linear(so + "/dense", y, w, bb, "onnx::MatMul_%dd" % li)
        y = b.op(so, "Add", [y, h1])
        h = layer_norm(b, so + "/LayerNorm", y,
                       param("%dln2_w" % li, 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32)),
                       param("%dln2_b" % li, rng.uniform(-0.05, 0.05, H).astype(np.float32)), eps)

    # Pooler: tanh(dense(h[:, 0])).
    s = "/pooler"
    first = b.op(s, "Gather", [h, b.const(s, 0, np.int64)], axis=1)
    w = param("pool_w", uniform(rng, (H, H), H))
    bb = param("pool_b", rng.uniform(-0.1, 0.1, H).astype(np.float32))
    y = b.op(s + "/dense", "Gemm", [first, b.init("pooler.dense.weight", w.T.copy()),
                                    b.init("pooler.dense.bias", bb)], alpha=1.0, beta=1.0,
             transB=1)
    pooled = b.op(s + "/activation", "Tanh", [y])
    b.nodes.append(helper.make_node("Identity", [h], ["last_hidden_state"],
                                    name="/Identity_last_hidden_state"))
    b.nodes.append(helper.make_node("Identity", [pooled], ["pooler_output"],
                                    name="/Identity_pooler_output"))
    b.outputs.append(helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                                   dyn + [H]))
    b.outputs.append(helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT,
                                                   ["batch_size", H]))

    # Inputs: batch rows with different padding.
    B, S = cfg["batch"], cfg["seq"]
    ids = rng.integers(1, V, size=(B, S)).astype(np.int64)
    mask = np.ones((B, S), np.int64)
    for r in range(1, B):
        mask[r, S - (S * r) // (2 * B) - 3:] = 0
    tt = np.zeros((B, S), np.int64)
    tt[:, S // 2:] = 1

    def ref():
        x = W["we"][ids] + W["te"][tt] + W["pe"][np.arange(S)][None]
        h = np_layer_norm(x, W["eln_w"], W["eln_b"], eps)
        ext = (1.0 - mask[:, None, None, :].astype(np.float64)) * -10000.0
        for li in range(L):
            def heads(nm):
                y = h @ W["%d%s_w" % (li, nm)] + W["%d%s_b" % (li, nm)]
                return y.reshape(B, S, A, D).transpose(0, 2, 1, 3)
            q, k, v = heads("query"), heads("key"), heads("value")
            p = np_softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(D) + ext)
            c = (p @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
            h1 = np_layer_norm(c @ W["%do_w" % li] + W["%do_b" % li] + h, W["%dln1_w" % li],
                               W["%dln1_b" % li], eps)
            i = np_gelu(h1 @ W["%di_w" % li] + W["%di_b" % li], cfg["gelu"])
            h = np_layer_norm(i @ W["%dd_w" % li] + W["%dd_b" % li] + h1, W["%dln2_w" % li],
                              W["%dln2_b" % li], eps)
        pooled = np.tanh(h[:, 0] @ W["pool_w"] + W["pool_b"])
        return [h, pooled]

    return b.model("main_graph"), [ids, mask, tt], ref()


# ---------------------------------------------------------------------------------------------
# Llama decoder (transformers LlamaForCausalLM as optimum exports it: decoder_model.onnx without
# past inputs for the prompt, decoder_with_past_model.onnx for the following steps).
def llama_weights(cfg, rng):
    H, A, KV, F, L, V = (cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["ffn"], cfg["layers"],
                         cfg["vocab"])
    D = H // A
    W = {"embed": rng.normal(0, 0.5, (V, H)).astype(np.float32),
         "norm": 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32),
         "lm_head": uniform(rng, (H, V), H)}
    for li in range(L):
        W["%d_ln1" % li] = 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32)
        W["%d_ln2" % li] = 1 + rng.uniform(-0.1, 0.1, H).astype(np.float32)
        W["%d_q" % li] = uniform(rng, (H, A * D), H)
        W["%d_k" % li] = uniform(rng, (H, KV * D), H)
        W["%d_v" % li] = uniform(rng, (H, KV * D), H)
        W["%d_o" % li] = uniform(rng, (A * D, H), H)
        W["%d_gate" % li] = uniform(rng, (H, F), H)
        W["%d_up" % li] = uniform(rng, (H, F), H)
        W["%d_down" % li] = uniform(rng, (F, H), F)
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
    freqs = np.outer(np.arange(cfg["max_pos"], dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], -1)
    W["cos"] = np.cos(emb).astype(np.float32)
    W["sin"] = np.sin(emb).astype(np.float32)
    return W


def np_rms(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def np_rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], -1)


def llama_reference(cfg, W, ids, mask, pos, past):
    """numpy forward; past: list of (k, v) per layer [B, KV, P, D] or None. -> logits, presents."""
    H, A, KV, L = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["layers"]
    D, eps = H // A, cfg["eps"]
    W = {k: v.astype(np.float64) for k, v in W.items()}
    B, S = ids.shape
    T = mask.shape[1]
    P = T - S
    i = np.arange(S)[:, None]
    j = np.arange(T)[None, :]
    future = j > i + P
    m4 = np.where(future[None, None] | (mask[:, None, None, :] == 0), F32_MIN, 0.0)
    cos = W["cos"][pos][:, None]
    sin = W["sin"][pos][:, None]
    h = W["embed"][ids]
    presents = []
    for li in range(L):
        x = np_rms(h, W["%d_ln1" % li], eps)
        q = (x @ W["%d_q" % li]).reshape(B, S, A, D).transpose(0, 2, 1, 3)
        k = (x @ W["%d_k" % li]).reshape(B, S, KV, D).transpose(0, 2, 1, 3)
        v = (x @ W["%d_v" % li]).reshape(B, S, KV, D).transpose(0, 2, 1, 3)
        q = q * cos + np_rotate_half(q) * sin
        k = k * cos + np_rotate_half(k) * sin
        if past is not None:
            k = np.concatenate([past[li][0], k], 2)
            v = np.concatenate([past[li][1], v], 2)
        presents += [k, v]
        kr = np.repeat(k, A // KV, axis=1)
        vr = np.repeat(v, A // KV, axis=1)
        p = np_softmax(q @ kr.transpose(0, 1, 3, 2) / math.sqrt(D) + m4)
        c = (p @ vr).transpose(0, 2, 1, 3).reshape(B, S, H)
        h = h + c @ W["%d_o" % li]
        x = np_rms(h, W["%d_ln2" % li], eps)
        g = x @ W["%d_gate" % li]
        h = h + ((g / (1.0 + np.exp(-g))) * (x @ W["%d_up" % li])) @ W["%d_down" % li]
    logits = np_rms(h, W["norm"], eps) @ W["lm_head"]
    return logits, presents


def rms_norm(b, scope, x, w, eps, wname):
    """LlamaRMSNorm: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight."""
    p = b.op(scope, "Pow", [x, b.const(scope, 2.0, np.float32)])
    var = b.reduce_mean(scope, p)
    a = b.op(scope, "Add", [var, b.const(scope, eps, np.float32)])
    s = b.op(scope, "Sqrt", [a])
    r = b.op(scope, "Div", [b.const(scope, 1.0, np.float32), s])  # rsqrt
    n = b.op(scope, "Mul", [x, r])
    return b.op(scope, "Mul", [b.init(wname, w), n])


def llama_case(cfg, W, with_past):
    H, A, KV, F, L, V = (cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["ffn"], cfg["layers"],
                         cfg["vocab"])
    D, eps, n_rep = H // A, cfg["eps"], cfg["heads"] // cfg["kv_heads"]
    b = Builder(cfg["opset"])
    b.inputs.append(helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                                  ["batch_size", "sequence_length"]))
    b.inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                                  ["batch_size", "total_sequence_length"]))
    b.inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64,
                                                  ["batch_size", "sequence_length"]))
    past_dims = ["batch_size", KV, "past_sequence_length", D]
    if with_past:
        for li in range(L):
            for kv in ("key", "value"):
                b.inputs.append(helper.make_tensor_value_info(
                    "past_key_values.%d.%s" % (li, kv), TensorProto.FLOAT, past_dims))
    b.outputs.append(helper.make_tensor_value_info(
        "logits", TensorProto.FLOAT, ["batch_size", "sequence_length", V]))

    s = "/model"
    h = b.op(s + "/embed_tokens", "Gather", [b.init("model.embed_tokens.weight", W["embed"]),
                                             "input_ids"])
    # The 4-D mask [B, 1, S, T]: finfo.min above the shifted diagonal (future keys) and at
    # padded keys, 0 elsewhere.
    seq = b.dim(s, "input_ids", 1)
    total = b.dim(s, "attention_mask", 1)
    past_len = b.op(s, "Sub", [total, seq])
    full = b.op(s, "ConstantOfShape", [b.shape_of(s, [seq, total])],
                value=numpy_helper.from_array(np.array([F32_MIN], np.float32)))
    diag = b.op(s, "Add", [past_len, b.const(s, 1, np.int64)])
    causal = b.op(s, "Trilu", [full, diag], upper=1)
    causal = b.unsq(s, causal, [0, 1])
    pad = b.op(s, "Equal", [b.op(s, "Cast", ["attention_mask"], to=TensorProto.FLOAT),
                            b.const(s, 0.0, np.float32)])
    pad = b.unsq(s, pad, [1, 2])
    mask4 = b.op(s, "Where", [pad, b.const(s, F32_MIN, np.float32), causal])
    # cos / sin rows of the cache up to the total length, gathered by position_ids.
    cos_c = b.init("model.layers.0.self_attn.rotary_emb.cos_cached", W["cos"])
    sin_c = b.init("model.layers.0.self_attn.rotary_emb.sin_cached", W["sin"])

    for li in range(L):
        s = "/model/layers.%d" % li
        x = rms_norm(b, s + "/input_layernorm", h, W["%d_ln1" % li], eps,
                     "model.layers.%d.input_layernorm.weight" % li)
        sa = s + "/self_attn"
        bsz, q_len = b.dim(sa, x, 0), b.dim(sa, x, 1)
        states = {}
        for nm, nh in (("q", A), ("k", KV), ("v", KV)):
            y = b.linear(sa + "/%s_proj" % nm, x, W["%d_%s" % (li, nm)], None,
                         "onnx::MatMul_%d%s" % (li, nm))
            y = b.op(sa, "Reshape", [y, b.shape_of(sa, [bsz, q_len, nh, D])])
            states[nm] = b.op(sa, "Transpose", [y], perm=[0, 2, 1, 3])
        kv_len = b.dim(sa, states["k"], 2)
        if with_past:
            kv_len = b.op(sa, "Add", [kv_len, b.dim(sa, "past_key_values.%d.key" % li, 2)])
        re = sa + "/rotary_emb"
        end = b.unsq(re, kv_len, [0])
        zero, axes0 = b.const(re, [0], np.int64), b.const(re, [0], np.int64)
        cos = b.op(re, "Slice", [cos_c, zero, end, axes0])
        sin = b.op(re, "Slice", [sin_c, zero, end, axes0])
        cos = b.unsq(sa, b.op(sa, "Gather", [cos, "position_ids"], axis=0), [1])
        sin = b.unsq(sa, b.op(sa, "Gather", [sin, "position_ids"], axis=0), [1])

        def rotary(t):
            half = D // 2
            x1 = b.op(sa, "Slice", [t, b.const(sa, [0], np.int64), b.const(sa, [half], np.int64),
                                    b.const(sa, [3], np.int64), b.const(sa, [1], np.int64)])
            x2 = b.op(sa, "Slice", [t, b.const(sa, [half], np.int64),
                                    b.const(sa, [np.iinfo(np.int64).max], np.int64),
                                    b.const(sa, [3], np.int64), b.const(sa, [1], np.int64)])
            rot = b.op(sa, "Concat", [b.op(sa, "Neg", [x2]), x1], axis=-1)
            return b.op(sa, "Add", [b.op(sa, "Mul", [t, cos]), b.op(sa, "Mul", [rot, sin])])

        q, k, v = rotary(states["q"]), rotary(states["k"]), states["v"]
        if with_past:
            k = b.op(sa, "Concat", ["past_key_values.%d.key" % li, k], axis=2)
            v = b.op(sa, "Concat", ["past_key_values.%d.value" % li, v], axis=2)
        for nm, t in (("key", k), ("value", v)):
            out = "present.%d.%s" % (li, nm)
            b.nodes.append(helper.make_node("Identity", [t], [out], name=sa + "/Identity_" + out))
            b.outputs.append(helper.make_tensor_value_info(
                out, TensorProto.FLOAT, ["batch_size", KV, "total_sequence_length", D]))

        def repeat_kv(t):
            # t[:, :, None].expand(b, kv, n_rep, slen, d).reshape(b, kv * n_rep, slen, d)
            bb, slen = b.dim(sa, t, 0), b.dim(sa, t, 2)
            e = b.op(sa, "Expand", [b.unsq(sa, t, [2]), b.shape_of(sa, [bb, KV, n_rep, slen, D])])
            return b.op(sa, "Reshape", [e, b.shape_of(sa, [bb, A, slen, D])])

        if n_rep > 1:
            k, v = repeat_kv(k), repeat_kv(v)
        kt = b.op(sa, "Transpose", [k], perm=[0, 1, 3, 2])
        sc = b.op(sa, "MatMul", [q, kt])
        sc = b.op(sa, "Div", [sc, b.const(sa, float(math.sqrt(D)), np.float32)])
        sc = b.op(sa, "Add", [sc, mask4])
        sc = b.op(sa, "Cast", [sc], to=TensorProto.FLOAT)  # softmax(..., dtype=torch.float32)
        pr = b.op(sa, "Softmax", [sc], axis=-1)
        c = b.op(sa, "MatMul", [pr, v])
        c = b.op(sa, "Transpose", [c], perm=[0, 2, 1, 3])
        c = b.op(sa, "Reshape", [c, b.shape_of(sa, [bsz, q_len, H])])
        o = b.linear(sa + "/o_proj", c, W["%d_o" % li], None, "onnx::MatMul_%do" % li)
        h = b.op(s, "Add", [h, o])
        x = rms_norm(b, s + "/post_attention_layernorm", h, W["%d_ln2" % li], eps,
                     "model.layers.%d.post_attention_layernorm.weight" % li)
        mlp = s + "/mlp"
        g = b.linear(mlp + "/gate_proj", x, W["%d_gate" % li], None, "onnx::MatMul_%dg" % li)
        g = b.op(mlp + "/act_fn", "Mul", [g, b.op(mlp + "/act_fn", "Sigmoid", [g])])
        u = b.linear(mlp + "/up_proj", x, W["%d_up" % li], None, "onnx::MatMul_%du" % li)
        y = b.op(mlp, "Mul", [g, u])
        y = b.linear(mlp + "/down_proj", y, W["%d_down" % li], None, "onnx::MatMul_%dd" % li)
        h = b.op(s, "Add", [h, y])
    x = rms_norm(b, "/model/norm", h, W["norm"], eps, "model.norm.weight")
    logits = b.linear("/lm_head", x, W["lm_head"], None, "onnx::MatMul_lm_head")
    b.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="/Identity_logits"))
    # Graph outputs in optimum's order: logits, then present.N.key / value.
    return b.model("main_graph")


def llama_data(cfg, W, rng, seq, past):
    """Inputs and reference outputs of one step: `seq` new tokens after `past` cached ones."""
    B, KV, D = cfg["batch"], cfg["kv_heads"], cfg["hidden"] // cfg["heads"]
    V = cfg["vocab"]
    pkv = None
    if past > 0:
        prompt = rng.integers(1, V, size=(B, past)).astype(np.int64)
        _, pres = llama_reference(cfg, W, prompt, np.ones((B, past), np.int64),
                                  np.tile(np.arange(past), (B, 1)), None)
        pkv = [(pres[2 * li].astype(np.float32), pres[2 * li + 1].astype(np.float32))
               for li in range(cfg["layers"])]
    ids = rng.integers(1, V, size=(B, seq)).astype(np.int64)
    mask = np.ones((B, past + seq), np.int64)
    pos = np.tile(np.arange(past, past + seq), (B, 1)).astype(np.int64)
    past64 = None if pkv is None else [(k.astype(np.float64), v.astype(np.float64))
                                       for k, v in pkv]
    logits, presents = llama_reference(cfg, W, ids, mask, pos, past64)
    inputs = [ids, mask, pos]
    if pkv is not None:
        for k, v in pkv:
            inputs += [k, v]
    return inputs, [logits] + presents


# ---------------------------------------------------------------------------------------------
def write_case(out_dir, name, model, inputs, outputs):
    d = os.path.join(out_dir, name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    tmp = os.path.join(d, "model.onnx.tmp")
    onnx.save(model, tmp)
    os.replace(tmp, os.path.join(d, "model.onnx"))
    graph_inputs = [i.name for i in model.graph.input]
    graph_outputs = [o.name for o in model.graph.output]
    for i, (n, a) in enumerate(zip(graph_inputs, inputs)):
        onnx.save_tensor(numpy_helper.from_array(np.ascontiguousarray(a), n),
                         os.path.join(data, "input_%d.pb" % i))
    for i, (n, a) in enumerate(zip(graph_outputs, outputs)):
        a = np.ascontiguousarray(a.astype(np.float32))
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(data, "output_%d.pb" % i))


BERT = {"hidden": 256, "heads": 4, "ffn": 1024, "layers": 2, "vocab": 1000, "max_pos": 512,
        "batch": 2, "seq": 128}
LLAMA = {"hidden": 256, "heads": 4, "kv_heads": 2, "ffn": 1024, "layers": 2, "vocab": 1000,
         "max_pos": 256, "batch": 1, "eps": 1e-6, "opset": 14}

CASES = {
    # name: (family, config overrides, extra)
    "bert": ("bert", {"opset": 14, "gelu": "erf"}),
    "bert_ln17_tanh": ("bert", {"opset": 17, "gelu": "tanh"}),
    "llama_prefill": ("llama", {"seq": 32, "past": 0}),
    "llama_decode": ("llama", {"seq": 1, "past": 31}),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--layers", type=int, default=0, help="override the layer count")
    args = ap.parse_args()
    for name in args.cases.split(","):
        if name not in CASES:
            sys.exit("generate.py: unknown case %r (known: %s)" % (name, ", ".join(CASES)))
        family, over = CASES[name]
        rng = np.random.default_rng(sum(ord(c) * 131 ** i for i, c in enumerate(name)) % 2**32)
        if family == "bert":
            cfg = dict(BERT, **over)
            if args.layers:
                cfg["layers"] = args.layers
            model, inputs, outputs = bert_case(cfg, rng)
        else:
            cfg = dict(LLAMA)
            if args.layers:
                cfg["layers"] = args.layers
            W = llama_weights(cfg, rng)
            model = llama_case(cfg, W, over["past"] > 0)
            inputs, outputs = llama_data(cfg, W, rng, over["seq"], over["past"])
        write_case(args.out, name, model, inputs, outputs)
        print("generate.py: %s/%s (%d nodes)" % (args.out, name, len(model.graph.node)))


if __name__ == "__main__":
    main()
