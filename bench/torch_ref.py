"""PyTorch reference of the workbench's transformer policy, for `make bench` (speed comparison only).

Same architecture as src/models/transformer.ts: pre-LN decoder, learned positions, separate Wq/Wk/Wv,
GELU as x*sigmoid(1.702x), untied head, value heads. Measures a PPO update step (forward, clipped surrogate
+ clipped value loss, backward, Adam) and K/V-cached sampling at the same sizes as the tfjs side: a warm-up,
then `reps` timed repetitions of each, their median. Prints one JSON object. `make bench` runs it once per run,
one thread (OMP/OPENBLAS/MKL_NUM_THREADS=1), with the interpreter that bin/setup-torch prints.
"""
import json, math, re, statistics, sys, time, resource
import torch

def main():
    cfg = json.loads(sys.argv[1])
    torch.manual_seed(0)
    torch.set_num_threads(cfg.get("threads", 1))
    torch.set_num_interop_threads(cfg.get("threads", 1))
    V, C, d, L, H, R = cfg["vocab"], cfg["context"], cfg["d"], cfg["layers"], cfg["heads"], 3
    B, Tp, Tc = cfg["batch"], cfg["prompt"], cfg["completion"]
    dh = d // H

    class Block(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.ln1, s.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            s.wq, s.wk, s.wv, s.wo = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
            s.w1, s.w2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
        def attn(s, h, cache=None):
            b, t, _ = h.shape
            q, k, v = (w(h).view(b, t, H, dh).transpose(1, 2) for w in (s.wq, s.wk, s.wv))
            if cache is not None:
                if "k" in cache:
                    k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
                cache["k"], cache["v"] = k, v
            att = q @ k.transpose(-1, -2) / math.sqrt(dh)
            if t > 1:
                tk = k.shape[2]
                att = att.masked_fill(torch.ones(t, tk).tril(tk - t) == 0, -1e9)
            return s.wo((att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d))
        def forward(s, x, cache=None):
            x = x + s.attn(s.ln1(x), cache)
            h = s.w1(s.ln2(x))
            return x + s.w2(h * torch.sigmoid(1.702 * h))

    class Model(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.tok, s.pos = torch.nn.Embedding(V, d), torch.nn.Embedding(C, d)
            s.blocks = torch.nn.ModuleList(Block() for _ in range(L))
            s.lnf, s.head, s.value = torch.nn.LayerNorm(d), torch.nn.Linear(d, V, bias=False), torch.nn.Linear(d, R)
        def forward(s, idx, start=0, caches=None):
            x = s.tok(idx) + s.pos(torch.arange(start, start + idx.shape[1]))
            for i, b in enumerate(s.blocks):
                x = b(x, None if caches is None else caches[i])
            x = s.lnf(x)
            return s.head(x), s.value(x)

    m = Model()
    opt = torch.optim.Adam(m.parameters(), lr=1e-4)
    T = Tp + Tc
    seq = torch.randint(0, V, (B, T))
    mask = torch.zeros(B, T - 1); mask[:, Tp - 1:] = 1
    old_lp = torch.randn(B, T - 1) * 0.1 - 3
    adv, ret, old_v = torch.randn(B, T - 1), torch.randn(B, T - 1), torch.randn(B, T - 1) * 0.1

    def ppo_step():
        logits, values = m(seq[:, :-1])
        lp = torch.log_softmax(logits, -1).gather(-1, seq[:, 1:, None]).squeeze(-1)
        ratio = torch.exp((lp - old_lp).clamp(-20, 20))
        pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        v = values[..., 0]
        vl = 0.5 * torch.max((v - ret) ** 2, (old_v + (v - old_v).clamp(-0.2, 0.2) - ret) ** 2)
        loss = ((pg + 0.5 * vl) * mask).sum() / mask.sum()
        opt.zero_grad(); loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()

    def sample():
        with torch.no_grad():
            caches = [dict() for _ in range(L)]
            logits, _ = m(seq[:, :Tp], 0, caches)
            tok = torch.multinomial(torch.softmax(logits[:, -1], -1), 1)
            for t in range(Tc - 1):
                logits, _ = m(tok, Tp + t, caches)
                tok = torch.multinomial(torch.softmax(logits[:, -1], -1), 1)
        return B * Tc

    def repeat(f):  # warm-up, then the median of `reps` timed calls, in seconds
        f()
        times = []
        for _ in range(cfg.get("reps", 1)):
            t0 = time.perf_counter(); f(); times.append(time.perf_counter() - t0)
        return statistics.median(times)

    update = repeat(ppo_step)
    tps = B * Tc / repeat(sample)
    blas = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(),
                      "interop_threads": torch.get_num_interop_threads(), "blas": blas.group(1) if blas else "unknown",
                      "update_ms": update * 1000, "sampling_tokens_per_s": tps,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))

if __name__ == "__main__":
    main()
