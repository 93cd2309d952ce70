"""Thin clients of the workbench reward service (make serve-rewards; docs/reward-service.md) for verl and TRL.

verl:  custom_reward_function.path=python/reward_shims.py custom_reward_function.name=compute_score
       (+custom_reward_function.reward_kwargs.reward_url=http://HOST:PORT/rlcer to pick a route), or
       name=compute_score_batch with reward_manager=batch (one request per batch).
TRL:   GRPOTrainer(reward_funcs=[make_reward_func(url)]) or [make_async_reward_func(url)].
Each sends OpenRLHF's body {"query": [...], "prompts": [...], "labels": [...]} and reads "rewards".
The sync clients use only the standard library; the async one needs aiohttp.
"""
import json
import os
import urllib.request

DEFAULT_URL = os.environ.get("REWARD_URL", "http://127.0.0.1:5057/get_reward")
TIMEOUT_S = 180


def _post(url, body, timeout=TIMEOUT_S):
    data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode("utf-8"))


def _question(extra_info):
    if isinstance(extra_info, dict):
        return extra_info.get("question") or extra_info.get("prompt") or ""
    return ""


def _label(ground_truth, extra_info):
    """The label the service reads: the ground truth, merged with extra_info["reward_label"] when that is a dict."""
    extra = extra_info.get("reward_label") if isinstance(extra_info, dict) else None
    if isinstance(extra, dict):
        return dict(extra, answer=ground_truth) if "answer" not in extra else extra
    return ground_truth


def compute_score(data_source, solution_str, ground_truth, extra_info=None, reward_url=None, **kwargs):
    """verl's naive/prime/dapo contract: one sample in, {"score": float, **extra_logs} out."""
    body = {"query": [solution_str], "prompts": [_question(extra_info)], "labels": [_label(ground_truth, extra_info)]}
    out = _post(reward_url or DEFAULT_URL, body)
    res = {"score": float(out["rewards"][0])}
    for k, v in (out.get("extra_logs") or {}).items():
        res[k] = float(v[0])
    return res


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, reward_url=None, **kwargs):
    """verl's batch reward manager: one request for the whole batch, a list of floats back."""
    extra_infos = extra_infos if extra_infos is not None else [None] * len(solution_strs)
    body = {"query": list(solution_strs), "prompts": [_question(e) for e in extra_infos],
            "labels": [_label(g, e) for g, e in zip(ground_truths, extra_infos)]}
    return [float(x) for x in _post(reward_url or DEFAULT_URL, body)["rewards"]]


def _text(x):
    """TRL gives strings (standard datasets) or message lists (conversational): the last message's content."""
    if isinstance(x, list):
        return x[-1]["content"] if x else ""
    return x


def _trl_body(prompts, completions, kwargs, label_key):
    labels = kwargs.get(label_key) or [""] * len(completions)
    ps = [_text(p) for p in prompts]
    return {"query": [p + _text(c) for p, c in zip(ps, completions)], "prompts": ps, "labels": list(labels)}


def make_reward_func(url=None, label_key="answer"):
    """A sync TRL reward function: the dataset column `label_key` is sent as each sample's label."""
    def reward_service(prompts, completions, **kwargs):
        out = _post(url or DEFAULT_URL, _trl_body(prompts, completions, kwargs, label_key))
        return [float(x) for x in out["rewards"]]
    return reward_service


def make_async_reward_func(url=None, label_key="answer", timeout=TIMEOUT_S):
    """An async TRL reward function (TRL >= 0.27 gathers these on its event loop)."""
    import aiohttp

    async def reward_service_async(prompts, completions, **kwargs):
        body = _trl_body(prompts, completions, kwargs, label_key)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as s:
            async with s.post(url or DEFAULT_URL, json=body) as r:
                r.raise_for_status()
                return [float(x) for x in (await r.json())["rewards"]]
    return reward_service_async
