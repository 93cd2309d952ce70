"""Thin clients of the workbench reward service (make serve-rewards; docs/reward-service.md) for verl and TRL.

verl >= 0.7 (the reward loop):
    reward.custom_reward_function.path=python/reward_shims.py
    reward.custom_reward_function.name=compute_score          (per-sample routes: outcome, evolm, corl, rubicon)
    reward.custom_reward_function.name=compute_score_async    (any route, RLCER's groups included)
    +reward.custom_reward_function.reward_kwargs.reward_url=http://HOST:PORT/rlcer
verl <= 0.6 (legacy keys): custom_reward_function.path / .name / +custom_reward_function.reward_kwargs.reward_url,
    reward_model.reward_manager=batch with name=compute_score_batch for RLCER's groups.
TRL:
    GRPOTrainer(reward_funcs=[RewardService(url, group_size=num_generations)]) or make_async_reward_func(url);
    both pickle, as TRL's async GRPO trainer needs.
Each sends OpenRLHF's body {"query": [...], "prompts": [...], "labels": [...]} and reads "rewards" (and "extra_logs").
With $REWARD_SERVICE_TOKEN (or token=) the request carries "Authorization: Bearer TOKEN"; with $REWARD_CLIENT_ID (or
client_id=) an "X-Client-Id" header. The sync clients use only the standard library; the async ones need aiohttp.
"""
import functools
import json
import os
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:5057/get_reward"
TIMEOUT_S = 180


class RewardServiceError(RuntimeError):
    """The reward service refused a request: `status` is its HTTP status, the message its one-line reason."""

    def __init__(self, url, status, message):
        super().__init__(f"reward service {url}: HTTP {status}: {message}")
        self.url, self.status, self.reason = url, status, message


def _url(url):
    return url or os.environ.get("REWARD_URL") or DEFAULT_URL


def _headers(token=None, client_id=None, per_sample=False):
    h = {"Content-Type": "application/json"}
    token = token or os.environ.get("REWARD_SERVICE_TOKEN")
    client_id = client_id or os.environ.get("REWARD_CLIENT_ID")
    if token:
        h["Authorization"] = f"Bearer {token}"
    if client_id:
        h["X-Client-Id"] = client_id
    if per_sample:
        h["X-Reward-Call"] = "per-sample"
    return h


def _error_message(text):
    try:
        return json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        return text.strip()[:500]


def _jsonable(x):
    """numpy scalars and arrays (verl's non_tensor_batch holds them) as plain JSON values."""
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON serializable")


def _dumps(body):
    return json.dumps(body, default=_jsonable).encode("utf-8")


def _post(url, body, headers=None, timeout=TIMEOUT_S):
    data = _dumps(body)
    req = urllib.request.Request(url, data=data, headers=headers or _headers(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise RewardServiceError(url, e.code, _error_message(e.read().decode("utf-8", "replace"))) from None


async def _post_async(url, body, headers, timeout=TIMEOUT_S):
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as s:
        async with s.post(url, data=_dumps(body), headers=headers) as r:
            text = await r.text()
            if r.status != 200:
                raise RewardServiceError(url, r.status, _error_message(text))
            return json.loads(text)


# ---- verl ----

def _question(extra_info):
    if isinstance(extra_info, dict):
        return extra_info.get("question") or extra_info.get("prompt") or ""
    return ""


def _label(data_source, ground_truth, extra_info):
    """The label the service reads: the ground truth, merged with extra_info["reward_label"] when that is a dict.

    A sample's RLCER group is the label's "group", else (verl's datasets carry it) data_source/extra_info["index"],
    so that the rollouts of one prompt form one group even without a question in extra_info.
    """
    extra = extra_info.get("reward_label") if isinstance(extra_info, dict) else None
    label = dict(extra) if isinstance(extra, dict) else None
    index = extra_info.get("index") if isinstance(extra_info, dict) else None
    if label is None and index is None:
        return ground_truth
    if label is None:
        label = dict(ground_truth) if isinstance(ground_truth, dict) else {"answer": ground_truth}
    elif not isinstance(ground_truth, dict):
        label.setdefault("answer", ground_truth)
    if index is not None and not isinstance(index, bool):
        label.setdefault("group", f"{data_source}/{index}")
    return label


def _verl_body(data_sources, solution_strs, ground_truths, extra_infos):
    return {"query": [str(s) for s in solution_strs], "prompts": [_question(e) for e in extra_infos],
            "labels": [_label(d, g, e) for d, g, e in zip(data_sources, ground_truths, extra_infos)]}


def _verl_results(out, n):
    logs = out.get("extra_logs") or {}
    return [dict({"score": float(out["rewards"][i])}, **{k: float(v[i]) for k, v in logs.items()}) for i in range(n)]


_PER_SAMPLE_HINT = (
    "verl calls compute_score with one sample at a time, but this route scores groups of samples. verl >= 0.7 (the "
    "reward loop): set reward.custom_reward_function.name=compute_score_async, which keeps every sample of a batch "
    "in flight at once; verl <= 0.6: set reward_model.reward_manager=batch and custom_reward_function.name="
    "compute_score_batch. Or score each sample alone: extra_info['reward_label'] = {'group_size': 1}")


def compute_score(data_source, solution_str, ground_truth, extra_info=None, reward_url=None, token=None,
                  client_id=None, **kwargs):
    """verl's per-sample managers (naive, dapo, prime, the reward loop's): one sample in, {"score", **extra_logs} out.

    Sent with "X-Reward-Call: per-sample": a grouped route (RLCER) refuses it at once (HTTP 409), and this raises
    a RewardServiceError naming the manager and function to use instead, rather than wait for the group timeout.
    """
    url = _url(reward_url)
    try:
        out = _post(url, _verl_body([data_source], [solution_str], [ground_truth], [extra_info]),
                    _headers(token, client_id, per_sample=True))
    except RewardServiceError as e:
        if e.status == 409:
            raise RewardServiceError(url, 409, f"{_PER_SAMPLE_HINT} ({e.reason})") from None
        raise
    return _verl_results(out, 1)[0]


async def compute_score_async(data_source, solution_str, ground_truth, extra_info=None, reward_url=None, token=None,
                              client_id=None, **kwargs):
    """verl >= 0.7's reward loop with an async function: every sample of a batch is in flight at once, so RLCER's
    groups form across requests on the service. One sample in, {"score", **extra_logs} out."""
    out = await _post_async(_url(reward_url), _verl_body([data_source], [solution_str], [ground_truth], [extra_info]),
                            _headers(token, client_id))
    return _verl_results(out, 1)[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, reward_url=None, token=None,
                        client_id=None, **kwargs):
    """verl <= 0.6's batch reward manager: one request for the whole batch, one {"score", **extra_logs} per sample."""
    n = len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * n
    out = _post(_url(reward_url), _verl_body(list(data_sources), list(solution_strs), list(ground_truths), extra_infos),
                _headers(token, client_id))
    return _verl_results(out, n)


# ---- TRL ----

def _text(x):
    """TRL gives strings (standard datasets) or message lists (conversational): the last message's content."""
    if isinstance(x, list):
        return x[-1]["content"] if x else ""
    return x


class RewardService:
    """A TRL reward function (GRPOTrainer, RLOOTrainer, the async GRPO trainer) backed by the reward service.

    A module-level callable class, so it pickles (TRL's async GRPO trainer sends reward functions to a spawned
    process). TRL calls it as f(prompts=, completions=, completion_ids=, **dataset columns, trainer_state=, ...):
    the dataset column `label_key` is each sample's label; with `group_size` (set it to TRL's num_generations for
    RLCER) the label becomes {"answer": ..., "group_size": group_size} (merged when the column holds a dict). With
    `log_extras`, the service's extra_logs go to TRL's completions table through its log_extra callback.
    """

    __name__ = "reward_service"  # TRL's name for it in logs (rewards/reward_service/mean)

    def __init__(self, url=None, label_key="answer", group_size=None, token=None, client_id=None,
                 timeout=TIMEOUT_S, log_extras=True):
        self.url, self.label_key, self.group_size = url, label_key, group_size
        self.token, self.client_id, self.timeout, self.log_extras = token, client_id, timeout, log_extras

    def _label(self, x):
        if self.group_size is None:
            return x
        label = dict(x) if isinstance(x, dict) else {"answer": x}
        label.setdefault("group_size", int(self.group_size))
        return label

    def body(self, prompts, completions, kwargs):
        labels = kwargs.get(self.label_key) or [""] * len(completions)
        ps = [_text(p) for p in prompts]
        return {"query": [p + _text(c) for p, c in zip(ps, completions)], "prompts": ps,
                "labels": [self._label(x) for x in labels]}

    def _rewards(self, out, kwargs):
        log_extra = kwargs.get("log_extra")
        if self.log_extras and callable(log_extra):
            for k, v in (out.get("extra_logs") or {}).items():
                log_extra(f"service_{k}", [float(x) for x in v])
        return [float(x) for x in out["rewards"]]

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        out = _post(_url(self.url), self.body(prompts, completions, kwargs), _headers(self.token, self.client_id),
                    self.timeout)
        return self._rewards(out, kwargs)

    async def call_async(self, prompts, completions, completion_ids=None, **kwargs):
        out = await _post_async(_url(self.url), self.body(prompts, completions, kwargs),
                                _headers(self.token, self.client_id), self.timeout)
        return self._rewards(out, kwargs)


async def reward_service_async(service, prompts, completions, **kwargs):
    """The async TRL reward function: `service` (a RewardService) bound by make_async_reward_func."""
    return await service.call_async(prompts, completions, **kwargs)


def make_reward_func(url=None, label_key="answer", **options):
    """A sync TRL reward function (a RewardService: it pickles); options as RewardService's."""
    return RewardService(url, label_key, **options)


def make_async_reward_func(url=None, label_key="answer", **options):
    """An async TRL reward function (TRL gathers these on its event loop): a functools.partial of a module-level
    coroutine function, so it pickles and inspect.iscoroutinefunction recognises it on every Python version."""
    return functools.partial(reward_service_async, RewardService(url, label_key, **options))
