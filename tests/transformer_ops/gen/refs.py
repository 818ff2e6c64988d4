"""numpy references (float64) for the transformer operators, written from the operator texts
(ONNX Runtime's ContribOperators.md for the com.microsoft operators, ONNX's Operators.md for
Attention / RotaryEmbedding). The generator checks them against ONNX Runtime 1.30 wherever ORT
runs a case; where ORT cannot run one (or disagrees with the text) they are the reference.
"""
import numpy as np


def rope_rows(x, pos, cos, sin, interleaved, rdim):
    """Rotates rows x (S, H) at positions pos (S,) by cache rows cos / sin (P, >= rdim / 2)."""
    x = np.array(x, dtype=np.float64)
    half = rdim // 2
    c, s = cos[pos][:, :half], sin[pos][:, :half]
    if interleaved:
        x1, x2 = x[:, 0:rdim:2].copy(), x[:, 1:rdim:2].copy()
        x[:, 0:rdim:2], x[:, 1:rdim:2] = x1 * c - x2 * s, x1 * s + x2 * c
    else:
        x1, x2 = x[:, :half].copy(), x[:, half:rdim].copy()
        x[:, :half], x[:, half:rdim] = x1 * c - x2 * s, x1 * s + x2 * c
    return x


def softmax_rows(scores, sink=None):
    """Softmax of a row of visible scores, with an optional sink logit in the denominator."""
    m = scores.max() if scores.size else -np.inf
    if sink is not None:
        m = max(m, sink)
    e = np.exp(scores - m)
    den = e.sum() + (np.exp(sink - m) if sink is not None else 0.0)
    return e / den


def gqa(q, k, v, pk, pv, seqlens, T, cos=None, sin=None, pos_ids=None, bias=None, sink=None,
        num_heads=1, kv_num_heads=1, scale=0.0, softcap=0.0, local_window_size=-1,
        do_rotary=0, rotary_interleaved=0, smooth_softmax=0, qk_output=0, causal=1,
        tiled_padding=False):
    """com.microsoft GroupQueryAttention -> (output, present_key, present_value, output_qk).

    Rows past total_b (right padding) see what the last real token sees; with tiled_padding
    (ONNX Runtime's tiled path, see group_query_attention.cc) a local window stays at the row's
    own position instead, so such rows may see nothing (output 0)."""
    q = np.asarray(q, np.float64)
    B, S, _ = q.shape
    N, KV = num_heads, kv_num_heads
    if k is None:
        H = q.shape[2] // (N + 2 * KV)
        qq, kk, vv = q[:, :, :N * H], q[:, :, N * H:(N + KV) * H], q[:, :, (N + KV) * H:]
    else:
        H = q.shape[2] // N
        qq, kk, vv = q, np.asarray(k, np.float64), np.asarray(v, np.float64)
    Skv = kk.shape[1]
    qh = qq.reshape(B, S, N, H).transpose(0, 2, 1, 3).copy()
    kh = kk.reshape(B, Skv, KV, H).transpose(0, 2, 1, 3).copy()
    vh = vv.reshape(B, Skv, KV, H).transpose(0, 2, 1, 3).copy()
    P = 0 if pk is None else pk.shape[2]
    first = S == T
    present_len = max(T, P)
    sc = scale if scale else 1 / np.sqrt(H)
    out = np.zeros((B, N, S, H))
    qk = np.zeros((B, N, S, T))
    prk, prv = np.zeros((B, KV, present_len, H)), np.zeros((B, KV, present_len, H))
    for b in range(B):
        tot = int(seqlens[b]) + 1
        past = 0 if (first or pk is None) else tot - S
        if pk is not None and Skv == 0:
            past = tot
        if do_rotary:
            if pos_ids is not None:
                pos = pos_ids.reshape(-1)[0] + np.arange(S) if first else pos_ids[b, :S]
            else:
                pos = np.arange(S) if first else tot - S + np.arange(S)
            c, s, rdim = np.asarray(cos, np.float64), np.asarray(sin, np.float64), cos.shape[1] * 2
            for h in range(N):
                qh[b, h] = rope_rows(qh[b, h], pos, c, s, rotary_interleaved, rdim)
            for h in range(KV):
                kh[b, h] = rope_rows(kh[b, h], pos, c, s, rotary_interleaved, rdim)
        for h in range(KV):
            prk[b, h, :past] = pk[b, h, :past] if past else 0
            prv[b, h, :past] = pv[b, h, :past] if past else 0
            prk[b, h, past:past + Skv], prv[b, h, past:past + Skv] = kh[b, h], vh[b, h]
        causal_past = (0 if first else tot - S) if Skv == 0 else past
        for h in range(N):
            kvh = h // (N // KV)
            for s_ in range(S):
                own = causal_past + s_ + 1
                eff = min(own, tot) if causal else tot
                at = own if tiled_padding else eff
                start = max(0, at - local_window_size) if local_window_size >= 0 else 0
                if start >= eff:
                    continue
                row = (prk[b, kvh, start:eff] @ qh[b, h, s_]) * sc
                if softcap > 0:
                    row = softcap * np.tanh(row / softcap)
                if bias is not None:
                    row = row + bias[b % bias.shape[0], h % bias.shape[1], s_, start:eff]
                if qk_output == 1:
                    qk[b, h, s_, start:eff] = row
                snk = float(sink[h]) if sink is not None else (0.0 if smooth_softmax else None)
                p = softmax_rows(row, snk)
                if qk_output == 2:
                    qk[b, h, s_, start:eff] = p
                out[b, h, s_] = p @ prv[b, kvh, start:eff]
    return out.transpose(0, 2, 1, 3).reshape(B, S, N * H), prk, prv, qk


def rotary_ms(x, pos, cos, sin, interleaved=0, rotary_embedding_dim=0, num_heads=0):
    """com.microsoft RotaryEmbedding (input, position_ids, cos_cache, sin_cache)."""
    x = np.asarray(x, np.float64)
    cos, sin = np.asarray(cos, np.float64), np.asarray(sin, np.float64)
    if x.ndim == 4:
        B, N, S, H = x.shape
        xx = x.transpose(0, 2, 1, 3)
    else:
        B, S, D = x.shape
        H = D // num_heads if num_heads else cos.shape[1] * 2
        N = D // H
        xx = x.reshape(B, S, N, H)
    out = xx.copy()
    rdim = rotary_embedding_dim or H
    for b in range(B):
        p = pos.reshape(-1)[0] + np.arange(S) if pos.size == 1 else pos[b]
        for n in range(N):
            out[b, :, n] = rope_rows(xx[b, :, n], p, cos, sin, interleaved, rdim)
    return out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)
