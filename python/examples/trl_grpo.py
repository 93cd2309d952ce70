"""TRL's GRPOTrainer trains a tiny model through the workbench's reward service (RLCER over TRL's groups).

    make example-trl                      # starts the reward service itself, trains 3 steps, prints a summary
    .venv-clients/bin/python python/examples/trl_grpo.py --url http://127.0.0.1:5057 [--steps 3]

A tiny randomly initialised GPT-2 (a 14-word vocabulary, 32 wide, 2 layers: about 28k parameters) answers toy sums
with a boxed answer, and TRL 1.13's GRPOTrainer trains it on CPU with two reward functions pointed at the service's
/rlcer route: the sync RewardService and the async function of make_async_reward_func (python/reward_shims.py), each
in its own client namespace (X-Client-Id). RLCER needs each sample's verdict on each rubric criterion: here the
client judges two criteria by rule (a stand-in for a verifier) and sends the verdicts in the label, with the rubric
and TRL's num_generations as the group size. The service scores each group of num_generations completions: the
validity filter, then outcome + CoT reward.

Then, as TRL's async GRPO trainer does (trl.experimental.async_grpo), both reward functions are pickled into a
spawned process, which scores groups with that trainer's own _AsyncRolloutLoop._score_group. (The async trainer
itself needs a vLLM server and a FlashAttention kernel on a GPU, so its generation and update steps do not run here.)

--json FILE writes what test/trl-grpo.test.ts checks: TRL's logged completions, rewards and advantages per step,
the losses, how far the weights moved, and the async worker's rewards.
"""
import argparse
import functools
import glob
import json
import math
import multiprocessing as mp
import os
import pickle
import queue
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from reward_shims import RewardService, _text, reward_service_async  # noqa: E402

VOCAB = ["<pad>", "<eos>", "<unk>", "so", "?", "+", "=", "0", "1", "2", "3",
         "\\boxed{1}", "\\boxed{2}", "\\boxed{3}"]
RUBRIC = [{"criterion": "says so", "points": 2}, {"criterion": "asks ?", "points": -1}]
PROBLEMS = [("1 + 2 =", "3"), ("2 + 1 =", "3"), ("1 + 1 =", "2"), ("0 + 1 =", "1"), ("0 + 2 =", "2"),
            ("2 + 0 =", "2"), ("0 + 3 =", "3"), ("1 + 0 =", "1")]


class RubricReward(RewardService):
    """RLCER through the service with the criterion verdicts judged here, by rule: "says so" when the completion has
    the word "so", "asks ?" when it has "?". Module-level, so it pickles like RewardService."""

    def body(self, prompts, completions, kwargs):
        b = super().body(prompts, completions, kwargs)
        for label, c in zip(b["labels"], completions):
            words = _text(c).split()
            label["satisfied"] = {"says so": "so" in words, "asks ?": "?" in words}
        return b


def tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    t = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="<unk>"))
    t.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=t, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def model(tok, seed):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(VOCAB), n_positions=32, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    return GPT2LMHeadModel(cfg)


def start_service(group_size):
    """The reward service as a user runs it (src/cli/serve-rewards.ts), on a free loopback port."""
    cmd = [os.path.join(ROOT, "node_modules", ".bin", "tsx"), "src/cli/serve-rewards.ts", "--reward", "rlcer",
           "--port", "0", "--group-size", str(group_size), "--group-timeout", "60"]
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"reward server on (http://\S+?:\d+)", line)
    if not m:
        p.kill()
        raise SystemExit(f"the reward service did not start: {line.strip()}")
    return p, m.group(1)


def train(url, steps, num_generations, seed, out_dir):
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    tok = tokenizer()
    policy = model(tok, seed)
    before = {k: v.detach().clone() for k, v in policy.state_dict().items()}
    ds = Dataset.from_dict({"prompt": [p for p, _ in PROBLEMS],
                            "answer": [{"answer": a, "rubric": RUBRIC} for _, a in PROBLEMS]})
    # what make_reward_func and make_async_reward_func return, with RubricReward's verdicts
    rewards = [RubricReward(url + "/rlcer", group_size=num_generations, client_id="trl-sync"),
               functools.partial(reward_service_async,
                                 RubricReward(url + "/rlcer", group_size=num_generations, client_id="trl-async"))]
    args = GRPOConfig(output_dir=out_dir, per_device_train_batch_size=2 * num_generations,
                      num_generations=num_generations, max_completion_length=6, max_steps=steps, learning_rate=1e-2,
                      logging_steps=1, log_completions=True, num_completions_to_print=0, report_to="none",
                      save_strategy="no", use_cpu=True, seed=seed, dataloader_num_workers=0, disable_tqdm=True)
    trainer = GRPOTrainer(model=policy, reward_funcs=rewards, args=args, train_dataset=ds, processing_class=tok)
    t0 = time.monotonic()
    trainer.train()
    train_s = time.monotonic() - t0
    after = policy.state_dict()
    moved = max(float((after[k] - before[k]).abs().max()) for k in before)
    import pandas as pd

    logged = []
    for f in sorted(glob.glob(os.path.join(out_dir, "completions", "completions_*.parquet"))):
        df = pd.read_parquet(f)
        logged.append({c: [x.item() if hasattr(x, "item") else x for x in df[c].tolist()] for c in df.columns})
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    n_params = sum(p.numel() for p in policy.parameters())
    return {"steps": logged, "losses": losses, "weight_change": moved, "global_step": trainer.state.global_step,
            "params": n_params, "train_s": train_s, "reward_names": trainer.reward_func_names}, rewards


def _async_child(reward_funcs, groups, queue):
    """In a spawned process, as TRL's AsyncRolloutWorker runs its loop: score each group with the async GRPO
    trainer's own _AsyncRolloutLoop._score_group (sync reward functions in a thread, async ones awaited)."""
    import asyncio

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from accelerate.state import PartialState
    from trl.experimental.async_grpo.async_rollout_worker import (RolloutGroup, TrainingSequence, _AsyncRolloutLoop,
                                                                  _scrub_child_env)
    from trl.trainer.utils import get_callable_name

    _scrub_child_env()  # as the worker's _child_main starts
    PartialState()

    out = []
    for funcs in ([reward_funcs[0]], [reward_funcs[1]]):
        loop = object.__new__(_AsyncRolloutLoop)
        loop.reward_funcs, loop.reward_func_names = funcs, [get_callable_name(f) for f in funcs]
        loop._env_reward_types, loop._provides_rollout_reward = [], False
        for g in groups:
            n = len(g["completions"])
            group = RolloutGroup(
                prompts=[[{"role": "user", "content": p}] for p in g["prompts"]],
                reward_kwargs={"answer": [g["label"]] * n},
                completions=[[{"role": "assistant", "content": c}] for c in g["completions"]],
                completions_ids=[[0]] * n,
                completions_sequences=[[TrainingSequence([0], [1], [0.0], f"r{i}")] for i in range(n)],
                tool_call_counts=[0] * n,
                tool_failure_counts=[0] * n, model_version=0, group_id=0, env_rewards=[], rollout_rewards=[None] * n)
            samples = asyncio.run(loop._score_group(group))
            out.append({"name": loop.reward_func_names[0], "rewards": [s.metrics["reward"] for s in samples],
                        "advantages": [s.advantage for s in samples], "completions": g["completions"]})
    queue.put(out)


def async_worker(reward_funcs, groups):
    # AsyncRolloutWorker.start: the reward functions must pickle, then go to a spawned child
    pickle.dumps({"reward_funcs": reward_funcs})
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_async_child, args=(reward_funcs, groups, q), daemon=True)
    p.start()
    deadline = time.monotonic() + 120
    while True:
        try:
            out = q.get(timeout=1)
            break
        except queue.Empty:
            if not p.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the spawned scoring process ended without results (exit code {p.exitcode})")
    p.join(30)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", help="the reward service's base URL (default: start one on a free loopback port)")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--num-generations", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="TRL's output_dir (default: a temporary folder)")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    import torch
    import transformers
    import trl

    torch.set_num_threads(1)
    service, url = (None, a.url.rstrip("/")) if a.url else start_service(a.num_generations)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            res, rewards = train(url, a.steps, a.num_generations, a.seed, a.out or tmp)
        last = res["steps"][-1]
        G = a.num_generations
        groups = [{"prompts": last["prompt"][k:k + G], "completions": last["completion"][k:k + G],
                   "label": {"answer": dict(PROBLEMS)[last["prompt"][k]], "rubric": RUBRIC}}
                  for k in range(0, len(last["prompt"]), G)]
        t0 = time.monotonic()
        res["async_worker"] = async_worker(rewards, groups)
        res["async_s"] = time.monotonic() - t0
    finally:
        if service:
            service.terminate()
            service.wait(10)
    res["versions"] = {"python": sys.version.split()[0], "torch": torch.__version__,
                       "transformers": transformers.__version__, "trl": trl.__version__}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)
    v = res["versions"]
    print(f"TRL {v['trl']} (transformers {v['transformers']}, torch {v['torch']}): GRPOTrainer, {res['params']} "
          f"parameters, {res['global_step']} steps in {res['train_s']:.1f} s, rewards from {url}/rlcer")
    for k, s in enumerate(res["steps"]):
        r = s["reward_service"]
        print(f"  step {k + 1}: mean reward {sum(r) / len(r):+.3f} over {len(r)} completions "
              f"in groups of {G}; loss {res['losses'][k]:+.4f}")
    print(f"  weights moved by up to {res['weight_change']:.2e}; the async trainer's scoring (a spawned process) "
          f"gave {sum(len(x['rewards']) for x in res['async_worker'])} rewards in {res['async_s']:.1f} s")
    ok = all(math.isfinite(x) for x in res["losses"]) and res["weight_change"] > 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
