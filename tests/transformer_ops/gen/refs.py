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


LOWEST = -3.4028234663852886e38


def padding_bias(mask, B, S, L, past, filt):
    """ONNX Runtime's key padding / raw mask forms as an additive (B, S, T) term."""
    T = past + L
    m = np.zeros((B, S, T))
    if mask is None:
        return m
    mask = np.asarray(mask)
    if mask.ndim == 1:
        for b in range(B):
            m[b, :, max(int(mask[b]), 0):] = filt
            if mask.shape[0] == 2 * B:
                m[b, :, :min(int(mask[B + b]), T)] = filt
    elif mask.ndim == 2:
        m += np.where(mask[:, None, :] > 0, 0, filt)
    elif mask.ndim == 3:
        m += np.where(mask > 0, 0, filt)
    else:
        m += np.where(mask[:, 0, past:past + S, :T] > 0, 0, filt)
    return m


def attend_bnsh(Qh, Kh, Vh, past, scale, causal, add):
    """softmax(scale Q K^T + add, causal keys removed) V over (B, N, S, T); also the scores
    before the softmax with ONNX Runtime's lowest float at causally masked keys."""
    S, T = Qh.shape[2], Kh.shape[2]
    s = np.einsum("bnsh,bnth->bnst", Qh, Kh) * scale + add
    if causal:
        cm = np.arange(T)[None, :] > np.arange(S)[:, None] + past
        s = np.where(cm, LOWEST, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return np.einsum("bnst,bnth->bnsh", p, Vh), s


def mha(q, k=None, v=None, bias=None, kpm=None, ab=None, pk=None, pv=None, psl=None,
        num_heads=1, scale=0.0, unidirectional=0, mask_filter_value=-10000.0):
    """com.microsoft MultiHeadAttention -> (output, present_key, present_value, qk)."""
    q = np.asarray(q, np.float64)
    B, S, N = q.shape[0], q.shape[1], num_heads
    bias = None if bias is None else np.asarray(bias, np.float64)
    if q.ndim == 5:
        H = Hv = q.shape[4]
        Qh, Kh, Vh = (q[:, :, :, i].transpose(0, 2, 1, 3) for i in range(3))
    else:
        H = q.shape[2] // N
        Qh = q.reshape(B, S, N, H).transpose(0, 2, 1, 3)
        k = np.asarray(k, np.float64)
        if k.ndim == 5:
            Hv = H
            Kh, Vh = (k[:, :, :, i].transpose(0, 2, 1, 3) for i in range(2))
        elif k.ndim == 4:
            Kh, Vh = k, np.asarray(v, np.float64)
            Hv = Vh.shape[3]
        else:
            v = np.asarray(v, np.float64)
            L, Hv = k.shape[1], v.shape[2] // N
            Kh = k.reshape(B, L, N, H).transpose(0, 2, 1, 3)
            Vh = v.reshape(B, L, N, Hv).transpose(0, 2, 1, 3)
    D = N * H
    if bias is not None:
        Qh = Qh + bias[:D].reshape(N, H)[None, :, None]
        if k is None or k.ndim != 4:
            Kh = Kh + bias[D:2 * D].reshape(N, H)[None, :, None]
            Vh = Vh + bias[2 * D:].reshape(N, Hv)[None, :, None]
    L = Kh.shape[2]
    past, cap = 0, L
    prk, prv = Kh, Vh
    if pk is not None:
        past = pk.shape[2] if psl is None else int(np.asarray(psl).reshape(-1)[0])
        Kh = np.concatenate([pk[:, :, :past], Kh], 2)
        Vh = np.concatenate([pv[:, :, :past], Vh], 2)
        prk, prv = Kh, Vh
        if psl is not None:  # shared buffer: the rows after the new ones keep the buffer's
            prk, prv = np.array(pk, np.float64), np.array(pv, np.float64)
            prk[:, :, :past + L], prv[:, :, :past + L] = Kh, Vh
    add = padding_bias(kpm, B, S, L, past, mask_filter_value)[:, None]
    if ab is not None:
        add = add + np.asarray(ab, np.float64)
    sc = scale if scale else 1 / np.sqrt(H)
    out, scores = attend_bnsh(Qh, Kh, Vh, past, sc, unidirectional, add)
    return out.transpose(0, 2, 1, 3).reshape(B, S, N * Hv), prk, prv, scores


def attention_ms(x, w, bias=None, mask=None, past=None, ab=None, psl=None, num_heads=1,
                 qkv_hidden_sizes=None, unidirectional=0, scale=0.0, mask_filter_value=-10000.0,
                 past_present_share_buffer=0):
    """com.microsoft Attention -> (output, present)."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    Dq, Dk, Dv = qkv_hidden_sizes or [w.shape[1] // 3] * 3
    qkv = x @ w + (0 if bias is None else np.asarray(bias, np.float64))
    q, k, v = qkv[..., :Dq], qkv[..., Dq:Dq + Dk], qkv[..., Dq + Dk:]
    pk = pv = None
    if past is not None:
        pk, pv = np.asarray(past[0], np.float64), np.asarray(past[1], np.float64)
    y, prk, prv, _ = mha(q, k, v, None, mask, ab, pk, pv,
                         psl if past_present_share_buffer else None, num_heads=num_heads,
                         scale=scale, unidirectional=unidirectional,
                         mask_filter_value=mask_filter_value)
    return y, (np.stack([prk, prv]) if prk.shape == prv.shape else None)


def attention_onnx(q, k, v, mask=None, pk=None, pv=None, nonpad=None, q_num_heads=0,
                   kv_num_heads=0, is_causal=0, scale=None, softcap=0.0,
                   qk_matmul_output_mode=0, left_window_size=-1, right_window_size=-1,
                   softmax_precision=None, opset=23):
    """ONNX Attention -> (Y, present_key, present_value, qk_matmul_output)."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    three_d = q.ndim == 3
    if q.ndim == 3:
        q = q.reshape(q.shape[0], q.shape[1], q_num_heads, -1).transpose(0, 2, 1, 3)
    if k.ndim == 3:
        k = k.reshape(k.shape[0], k.shape[1], kv_num_heads, -1).transpose(0, 2, 1, 3)
    if v.ndim == 3:
        v = v.reshape(v.shape[0], v.shape[1], kv_num_heads, -1).transpose(0, 2, 1, 3)
    P = 0
    if pk is not None:
        P = pk.shape[2]
        k = np.concatenate([np.asarray(pk, np.float64), k], 2)
        v = np.concatenate([np.asarray(pv, np.float64), v], 2)
    B, Hq, S, Dh = q.shape
    T = k.shape[2]
    g = Hq // k.shape[1]
    kk, vv = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    sc = scale if scale is not None else 1 / np.sqrt(Dh)
    raw = np.einsum("bnsh,bnth->bnst", q, kk) * sc
    capped = softcap * np.tanh(raw / softcap) if softcap else raw
    bias = np.zeros((B, 1, S, T))
    if mask is not None:
        m = np.asarray(mask)
        mb = np.where(m, 0.0, -np.inf) if m.dtype == bool else m.astype(np.float64)
        if opset >= 24 and mb.shape[-1] < T:
            pad = np.full(mb.shape[:-1] + (T - mb.shape[-1],), -np.inf)
            mb = np.concatenate([mb, pad], -1)
        bias = bias + mb
    offset = np.full(B, P) if nonpad is None or pk is not None else np.asarray(nonpad) - S
    rows = np.arange(S)[None, :, None] + offset[:, None, None]  # (B, S, 1) positions
    cols = np.arange(T)[None, None, :]
    allowed = np.ones((B, S, T), bool)
    if is_causal:
        allowed &= cols <= rows
    if left_window_size >= 0:
        allowed &= cols >= rows - left_window_size
    if right_window_size >= 0:
        allowed &= cols <= rows + right_window_size
    if nonpad is not None:
        allowed &= cols < np.asarray(nonpad)[:, None, None]
    bias = bias + np.where(allowed, 0.0, -np.inf)[:, None]
    scores = capped + bias
    rowmax = np.max(bias, -1, keepdims=True)
    mx = np.max(scores, -1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(scores - mx)
    den = e.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where((rowmax == -np.inf) | (den == 0), 0.0, e / den)
    y = np.einsum("bnst,bnth->bnsh", p, vv)
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(B, S, -1)
    qk = {0: raw, 1: capped, 2: scores, 3: p}[qk_matmul_output_mode]
    return y, k, v, qk
