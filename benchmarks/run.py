"""`make bench`: every figure of the performance section, each measured in this one run.

    python benchmarks/run.py [--quick] [--quiet] [--synth 10000,100000] [--questions 2000] [--seconds 15]
    python benchmarks/run.py --only audit --synth 10000      # one part only (see --only)

Figures: the gold-set measurements (audit accuracy, extraction precision and recall); check latency of
1,000-character texts and check time against text length (2k, 8k, 32k characters); engine vs raw durable_rules; the wall time and peak memory of the command a user
types, `gpukb audit --json` to a file, on the bundled KB and on synthetic KBs, then the audit's own parts
measured in process (load, audit, CPU; with the 100k/10k ratio), the re-audit after adding 1% more claims to the largest against its
full audit, and the speed-up of 2 worker processes; in-process question latency (median, p99); HTTP /v1/ask vs /health throughput on the
same gunicorn server; server start-up time and per-worker memory. A figure that cannot be measured
(a timeout, a missing tool) is printed as such, never invented.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

from gpukb.server.progress import Bar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULTS: dict[str, object] = {}
QUIET = not sys.stderr.isatty()      # progress bars on a terminal only (--quiet turns them off)


def say(name: str, text: str, value: object = None) -> None:
    print(f"{name:<28} {text}", flush=True)
    RESULTS[name] = value if value is not None else text


def bench_engine_vs_raw() -> None:
    from benchmarks import engine_vs_raw
    r = engine_vs_raw.main()
    say("engine_vs_raw", f"engine {r['engine_ms']} ms vs raw durable_rules {r['raw_ms']} ms per scenario: "
        f"ratio {r['ratio']} (goal <= 1.5)", r)


def _audit_child(kb_dir: str, out: str, opts: str = "{}") -> None:
    """Runs in a child process: load a KB, audit it, report seconds and peak RSS. ``opts`` (JSON):
    ``workers``; ``after``: a KB directory with more claims, audited next reusing the first audit's
    unchanged blocks (the incremental re-audit)."""
    import resource
    from gpukb.engine.audit.run import run_audit
    from gpukb.engine.service.state import GpuKB
    o = json.loads(opts)
    t0 = time.perf_counter()
    kb = GpuKB(kb_dir)
    t1, c1 = time.perf_counter(), time.process_time()
    res = run_audit(kb, kb.view(None), workers=o.get("workers", 1), keep_proofs=False)
    t2, c2 = time.perf_counter(), time.process_time()
    r = {"load_s": t1 - t0, "audit_s": t2 - t1, "audit_cpu_s": c2 - c1,   # CPU time: this process only
         "findings": len(res.findings), "claims": len(res.statuses),
         "blocks": res.run.units, "batches": res.run.batches, "workers": res.run.workers,
         "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,        # the audit's own peak
         "peak_child_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}  # the largest worker
    afters = o.get("after") or []
    if afters:
        r["after"] = []
        del kb
    for after_dir in afters if isinstance(afters, list) else [afters]:
        after = GpuKB(after_dir)
        t3, c3 = time.perf_counter(), time.process_time()
        inc = run_audit(after, after.view(None), previous=res, keep_proofs=False)
        t4, c4 = time.perf_counter(), time.process_time()
        r["after"].append({"claims": len(inc.statuses), "reaudit_s": t4 - t3, "reaudit_cpu_s": c4 - c3, "reaudited": inc.run.audited,
                           "reused": inc.run.reused, "claims_reaudited": inc.run.claims_audited,
                           "units_replanned": inc.run.planned})
        del after, inc
    if afters:      # the re-audits hold both KBs and the first result: their peak is reported apart
        r["reaudit_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(out).write_text(json.dumps(r))


def _cli_child(kb_dir: str, out: str, timeout: str) -> None:
    """Runs in a child process: the command a user types, ``gpukb --kb DIR audit --json > FILE``, as
    a subprocess of its own; its wall time and peak RSS (``RUSAGE_CHILDREN``: this process has no
    other child) and the size of what it wrote."""
    import resource
    answer = Path(out).with_suffix(".answer.json")
    t0 = time.perf_counter()
    with open(answer, "wb") as f:
        try:
            p = subprocess.run([sys.executable, "-m", "gpukb.server.cli", "--kb", kb_dir, "audit", "--json"],
                               cwd=ROOT, stdout=f, stderr=subprocess.DEVNULL, timeout=float(timeout))
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = None
    wall = time.perf_counter() - t0
    r = {"wall_s": wall, "returncode": code, "bytes": answer.stat().st_size,
         "peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
    answer.unlink()
    Path(out).write_text(json.dumps(r))


def _cli(label: str, kb_dir: str, out: Path, timeout: float) -> dict | None:
    """``gpukb audit --json`` to a file, timed in a child process (see :func:`_cli_child`)."""
    p = subprocess.Popen([sys.executable, __file__, "--cli-child", kb_dir, str(out), str(timeout)], cwd=ROOT)
    try:
        with Bar(not QUIET) as progress:
            t0 = time.perf_counter()
            while p.poll() is None:
                if time.perf_counter() - t0 > timeout + 60:
                    p.kill()
                    p.wait()
                    return None
                time.sleep(1)
                progress(f"gpukb audit --json of {label} (seconds of {timeout:.0f})", int(time.perf_counter() - t0), int(timeout))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0 or not out.exists():
        return None
    r = json.loads(out.read_text())
    return r if r.get("returncode") == 0 else None


def _child(label: str, kb_dir: str, out: Path, timeout: float, opts: dict | None = None) -> dict | None:
    """One audit in a child process (a fresh interpreter: its peak memory is the audit's own)."""
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, __file__, "--audit-child", kb_dir, str(out), json.dumps(opts or {})], cwd=ROOT)
    with Bar(not QUIET) as progress:
        while p.poll() is None:
            if time.perf_counter() - t0 > timeout:
                p.kill()
                p.wait()
                return None
            time.sleep(1)
            progress(f"auditing {label} (seconds of {timeout:.0f})", int(time.perf_counter() - t0), int(timeout))
    if p.returncode != 0 or not out.exists():
        return None
    return json.loads(out.read_text())


def bench_audit(sizes: list[int], timeout: float, workers: int = 2, added: float = 0.01) -> None:
    """Audit time and peak memory of the bundled KB and of synthetic KBs; the ratio of the two first
    sizes; the speed-up of ``workers`` local processes on the first size; and the re-audit after adding
    ``added`` more claims (as topical sources, each about one family, and as claims spread over every
    entity) to the last size, against its full audit."""
    from gpukb.engine.kb.synth import add_synthetic_sources, make_synthetic_kb
    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-"))
    try:
        measured = {}
        dirs = {}
        for label, kb_dir in [("bundled", str(ROOT / "kb"))] + [(str(n), None) for n in sizes]:
            if kb_dir is None:
                n = int(label)
                kb_dir = str(tmp / f"synth{n}")
                with Bar(not QUIET) as progress:
                    make_synthetic_kb(kb_dir, n, seed=7,
                                      progress=lambda done, total: progress(f"synthetic KB, {n} claims", done, total))
            dirs[label] = kb_dir
            opts = {}
            if sizes and label == str(sizes[-1]):
                more = max(1, int(int(label) * added))
                for kind, topical in (("topical", True), ("spread", False)):
                    add_synthetic_sources(kb_dir, tmp / f"synth{label}-{kind}", more, seed=1, topical=topical)
                opts = {"after": [str(tmp / f"synth{label}-topical"), str(tmp / f"synth{label}-spread")]}
            # the command a user types: load, audit and the whole answer written to a file
            c = _cli(label, kb_dir, tmp / f"cli-{label}.json", timeout)
            if c is None:
                say(f"audit_cli_{label}", f"gpukb audit --json did not finish within {timeout:.0f} s (or failed)",
                    {"timeout_s": timeout})
            else:
                say(f"audit_cli_{label}", f"gpukb audit --json > file: {c['wall_s']:.1f} s, peak {c['peak_rss_mib']:.0f} MiB, "
                    f"{c['bytes'] / 1e6:.1f} MB written (goal at 100,000 claims: peak < 2 GB)", c)
            # the audit alone, in process: its parts (load, audit, CPU) and the re-audits
            r = _child(label, kb_dir, tmp / f"audit-{label}.json", timeout, opts)
            if r is None:
                say(f"audit_{label}", f"did not finish within {timeout:.0f} s (or failed)", {"timeout_s": timeout})
                continue
            measured[label] = r
            say(f"audit_{label}", f"{r['claims']} claims audited in {r['audit_s']:.1f} s, CPU {r['audit_cpu_s']:.1f} s (load {r['load_s']:.1f} s), "
                f"{r['blocks']} units in {r['batches']} runs, {r['findings']} findings, peak {r['peak_rss_mib']:.0f} MiB", r)
            for kind, inc in zip(("topical", "spread"), r.get("after") or []):
                ratio = inc["reaudit_s"] / r["audit_s"]
                say(f"reaudit_{label}_{kind}", f"+{inc['claims'] - r['claims']} claims ({kind}): re-audit {inc['reaudit_s']:.1f} s "
                    f"(CPU {inc['reaudit_cpu_s']:.1f} s, {100 * inc['reaudit_cpu_s'] / r['audit_cpu_s']:.1f}% of the full audit's), "
                    f"{inc.get('claims_reaudited', '?')} claims of {inc['reaudited']} of {inc['reaudited'] + inc['reused']} units "
                    f"({inc.get('units_replanned', '?')} units planned anew); "
                    f"{100 * ratio:.1f}% of the full audit "
                    f"(goal < 10%)", {**inc, "ratio": ratio})
        if len(sizes) >= 2 and all(str(n) in measured for n in sizes[:2]):
            a, b = measured[str(sizes[0])], measured[str(sizes[1])]
            ratio = b["audit_s"] / a["audit_s"]
            say("audit_scaling", f"{sizes[1]}/{sizes[0]} claims: time ratio {ratio:.1f} (goal <= 12)", ratio)
        if sizes and str(sizes[0]) in measured and workers > 1:
            r = _child(f"{sizes[0]} on {workers} workers", dirs[str(sizes[0])], tmp / "audit-workers.json", timeout,
                       {"workers": workers})
            if r is None:
                say("audit_workers", f"{workers} workers: did not finish within {timeout:.0f} s (or failed)")
            else:
                one = measured[str(sizes[0])]["audit_s"]
                say("audit_workers", f"{sizes[0]} claims on {workers} worker processes ({os.cpu_count()} cores): "
                    f"{r['audit_s']:.1f} s vs {one:.1f} s, speed-up {one / r['audit_s']:.2f}x; "
                    f"peak {r['peak_rss_mib']:.0f} MiB here + {r.get('peak_child_rss_mib', 0):.0f} MiB per worker",
                    {**r, "speedup": one / r["audit_s"]})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


QUESTIONS_EN = ["why not {gpu} for {p}B full fine-tune", "can {gpu} fine-tune a {p}B model with QLoRA?",
                "how many {gpu}s for full fine-tuning a {p}B model?", "LoRA of a {p}B model on {gpu} with batch {b}",
                "inference of a {p}B model on {gpu}", "Does the {gpu} support BF16?"]
QUESTIONS_ZH = ["为什么 {gpu} 不能全量微调 {p}B 模型", "{gpu} 能用 QLoRA 微调 {p}B 模型吗", "需要几张 {gpu} 全量微调 {p}B 模型"]
GPUS = ["T4", "A10", "A100-40GB", "A100-80GB", "L4", "V100-32GB", "H100-80GB"]


def questions(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        tpl = rng.choice(QUESTIONS_EN + QUESTIONS_ZH)
        out.append(tpl.format(gpu=rng.choice(GPUS), p=round(rng.uniform(0.1, 80), 1), b=rng.choice([1, 2, 4, 8])))
    return out


def bench_questions(n: int) -> None:
    from gpukb.engine.service.state import GpuKB
    kb = GpuKB()
    kb.audit_result(kb.kb.latest)
    qs = questions(n)
    times, cpu = [], []
    for q in qs:
        t0, c0 = time.perf_counter(), time.process_time()
        kb.ask(q)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    times.sort()
    cpu.sort()
    med = statistics.median(times) * 1000
    p99 = times[int(0.99 * (len(times) - 1))] * 1000
    cmed, cp99 = statistics.median(cpu) * 1000, cpu[int(0.99 * (len(cpu) - 1))] * 1000
    distinct = len(set(qs))
    say("question_latency", f"{n} questions ({distinct} distinct): median {med:.1f} ms, p99 {p99:.1f} ms; "
        f"CPU time median {cmed:.1f} ms, p99 {cp99:.1f} ms (goal: 15 / 60 ms)",
        {"median_ms": med, "p99_ms": p99, "cpu_median_ms": cmed, "cpu_p99_ms": cp99, "n": n})


CHECK_EN = ["The {gpu} has {m} GB of memory.", "The {gpu} supports BF16.", "{gpu} does not have NVLink.",
            "A single {gpu} can fully fine-tune a {p}B model.", "Fine-tuning a {p}B model with LoRA needs about {m} GB.",
            "GN7 instances carry {gpu} GPUs.", "Its memory bandwidth is {bw} GB/s.", "Nothing to check in this sentence."]
CHECK_ZH = ["{gpu} 显存为 {m}GB。", "{gpu} 不支持 BF16。", "单张 {gpu} 可以全量微调 {p}B 模型。", "GN7 实例搭载 {gpu}。",
            "用 QLoRA 微调 {p}B 模型需要约 {m}GB 显存。", "今天天气不错。"]


def check_texts(n: int, chars: int = 1000, seed: int = 5) -> list[str]:
    """Distinct texts of about ``chars`` characters, each a mix of checkable and other sentences."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts: list[str] = []
        while sum(len(x) + 1 for x in parts) < chars:
            tpl = rng.choice(CHECK_EN + CHECK_ZH)
            parts.append(tpl.format(gpu=rng.choice(GPUS), m=rng.choice([8, 16, 24, 32, 40, 80]),
                                    p=round(rng.uniform(0.5, 70), 1), bw=rng.choice([300, 320, 600, 900, 2000])))
        out.append(" ".join(parts)[:chars])
    return out


def bench_check(n: int) -> None:
    from gpukb.engine.service.state import GpuKB
    kb = GpuKB()
    texts = check_texts(n)
    kb.check(texts[0])                      # warm-up: compiled patterns, the reasoner
    times, claims = [], 0
    for t in texts:
        t0 = time.perf_counter()
        claims += len(kb.check(t).claims)
        times.append(time.perf_counter() - t0)
    times.sort()
    med = statistics.median(times) * 1000
    p99 = times[int(0.99 * (len(times) - 1))] * 1000
    say("check_latency", f"{n} texts of 1,000 characters ({claims / n:.1f} claims each): median {med:.1f} ms, "
        f"p99 {p99:.1f} ms (goal: median < 100 ms)", {"median_ms": med, "p99_ms": p99, "n": n})


def bench_check_scaling(sizes: tuple[int, ...] = (2_000, 8_000, 32_000), repeat: int = 3) -> None:
    """Check time against text length (issue goal: linear, a 32,000-character text within 2 s): the
    median of ``repeat`` checks of one text per size, in process. A size over the check's limit
    (``MAX_CHECK_CHARS``, what the API and the library accept) is refused there; it is then timed with
    the limit lifted in this process (the engine's work for that length), and said so."""
    from gpukb.engine.core.errors import TooLarge
    from gpukb.engine.models.check import MAX_CHECK_CHARS
    from gpukb.engine.service.state import GpuKB
    import gpukb.engine.text.check as text_check
    kb = GpuKB()
    kb.check(check_texts(1, chars=1000)[0])          # warm-up: compiled patterns, the reasoner
    rows, refused = [], []
    for n in sizes:
        if n > MAX_CHECK_CHARS:
            try:
                kb.check(check_texts(1, chars=n)[0])
            except TooLarge:
                refused.append(n)
        times, claims = [], 0
        text_check.MAX_CHECK_CHARS = max(n, MAX_CHECK_CHARS)
        try:
            for i in range(repeat):
                text = check_texts(1, chars=n, seed=11 + i)[0]    # a text not checked before (no cache)
                t0 = time.perf_counter()
                claims = len(kb.check(text).claims)
                times.append(time.perf_counter() - t0)
        finally:
            text_check.MAX_CHECK_CHARS = MAX_CHECK_CHARS
        rows.append({"chars": n, "median_s": statistics.median(times), "claims": claims})
    base = rows[0]
    parts = [f"{r['chars']:,} chars {r['median_s']:.2f} s ({r['claims']} claims, "
             f"{r['median_s'] / base['median_s'] / (r['chars'] / base['chars']):.2f}x linear)" for r in rows]
    note = (f"; {', '.join(f'{n:,}' for n in refused)} characters: refused by the API and the library (limit "
            f"{MAX_CHECK_CHARS:,}), timed here with the limit lifted") if refused else ""
    say("check_scaling", "check of one text, median of " f"{repeat}: " + "; ".join(parts) + note
        + " (goal: linear, 32,000 characters <= 2 s)", {"rows": rows, "refused": refused, "limit": MAX_CHECK_CHARS})


def bench_quality() -> None:
    """The gold-set measurements: the audit's accuracy and the extractor's precision and recall."""
    from gpukb.engine.evals.audit import evaluate as eval_audit, load_gold
    from gpukb.engine.evals.extract import evaluate as eval_extract
    from gpukb.engine.service.state import GpuKB
    kb = GpuKB()
    view = kb.view(None)
    rep = eval_audit(kb.audit_result(view.name), load_gold(kb.kb_dir / "gold" / "audit.yaml"))
    u = rep["unverifiable"]
    say("audit_gold", f"label accuracy {100 * rep['label_accuracy']:.1f}%, evidence accuracy "
        f"{100 * rep['evidence_accuracy']:.1f}% on {rep['gold_claims']} gold claims, {len(rep['harmful'])} harmful; "
        f"unverifiable {u['unverifiable']}/{u['claims']} bundled claims (goals: 90%, 0, 25%)",
        {k: rep[k] for k in ("gold_claims", "label_accuracy", "evidence_accuracy")})
    ex = eval_extract(view)["overall"]
    say("extract_gold", f"precision {100 * ex['precision']:.1f}%, recall {100 * ex['recall']:.1f}% "
        f"({ex['matched']} of {ex['extracted']} extracted, of {ex['curated']} curated claims)", ex)


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _get(url: str, timeout: float = 30) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        r.read()
        return r.status


def _load(urls: list[str], seconds: float, threads: int, counter: Iterator[int] | None = None,
          slowest: list[float] | None = None) -> tuple[float, int, int]:
    """Requests/s, successes and failures of ``threads`` clients sending ``urls`` in turn for ``seconds``
    (``counter``: where in ``urls`` each next request is taken from, shared across calls; ``slowest``:
    gets the longest request's seconds)."""
    stop = time.perf_counter() + seconds
    ok = [0] * threads
    err = [0] * threads
    worst = [0.0] * threads

    def worker(i):
        j = i
        while time.perf_counter() < stop:
            k = next(counter) if counter is not None else j
            t0 = time.perf_counter()
            try:
                if _get(urls[k % len(urls)]) == 200:
                    ok[i] += 1
                else:
                    err[i] += 1
            except Exception:
                err[i] += 1
            worst[i] = max(worst[i], time.perf_counter() - t0)
            j += threads
    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    if slowest is not None:
        slowest.append(max(worst))
    return sum(ok) / dt, sum(ok), sum(err)


def _alternating(a: list[str], b: list[str], seconds: float, threads: int, slices: int = 5
                 ) -> tuple[tuple[float, int, int, float], tuple[float, int, int, float]]:
    """Two loads measured in alternating slices (``seconds`` each in all): a ratio of their throughputs
    then compares them on the same machine, whose speed drifts by 20% from one ten seconds to the next
    here. ``a``'s URLs are each sent once at most (until the list is exhausted). Each load's requests/s,
    successes, failures and longest request in seconds."""
    ca, cb = itertools.count(), itertools.count()
    sums = [[0.0, 0, 0, []], [0.0, 0, 0, []]]
    for _ in range(slices):
        for n, (urls, ctr) in enumerate(((a, ca), (b, cb))):
            t0 = time.perf_counter()
            _, ok, err = _load(urls, seconds / slices, threads, ctr, sums[n][3])
            sums[n][0] += time.perf_counter() - t0
            sums[n][1] += ok
            sums[n][2] += err
    return tuple((ok / dt, ok, err, max(worst)) for dt, ok, err, worst in sums)      # type: ignore[return-value]


def _each(urls: list[str], threads: int) -> None:
    """Fetch every URL once, from several threads."""
    todo = list(urls)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                u = todo.pop()
            try:
                _get(u)
            except Exception:
                pass
    ts = [threading.Thread(target=worker) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _start_server(port: int, workers: int):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gpukb.server.cli", "serve", "--port", str(port), "--workers", str(workers)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    while True:
        try:
            if _get(base + "/health", timeout=2) == 200:
                return proc, base, time.perf_counter() - t0
        except Exception:
            pass
        if time.perf_counter() - t0 > 120 or proc.poll() is not None:
            proc.kill()
            return None, base, None
        time.sleep(0.1)


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def bench_http(seconds: float, workers: int = 2, threads: int = 8) -> None:
    from gpukb.engine.audit.snapshot import default_path
    snap = default_path(ROOT / "kb", ROOT / "rules")
    if snap.exists():
        snap.unlink()   # measure the first start of a KB too: it builds the compiled snapshot
    proc, base, first = _start_server(_free_port(), workers)
    if proc is None:
        say("http", "server did not start within 120 s")
        return
    _stop(proc)
    proc, base, startup = _start_server(_free_port(), workers)
    if proc is None:
        say("http", "server did not restart within 120 s")
        return
    try:
        say("server_startup", f"{startup:.2f} s until /health answers ({workers} workers, snapshot present); "
            f"{first:.2f} s on the first start of this KB (builds the snapshot)", {"startup_s": startup, "first_start_s": first})
        warm = [base + "/v1/ask?" + urllib.parse.urlencode({"q": q}) for q in questions(400, seed=11)]
        # more distinct questions than the run can answer, so none is asked twice (a second ask is cached)
        cold = [base + "/v1/ask?" + urllib.parse.urlencode({"q": q}) for q in dict.fromkeys(questions(4000, seed=29))]
        # first answers: every question is new to the server (engine runs, nothing cached), measured in
        # slices alternating with /health, so the two throughputs compared come from the same minutes
        (c_rps, c_ok, c_err, c_worst), (hc_rps, hc_ok, hc_err, _) = _alternating(cold, [base + "/health"], min(seconds, 10), threads)
        say("http_ask_first", f"{c_rps:.0f} req/s ({c_ok} ok, {c_err} errors, slowest {c_worst * 1000:.0f} ms) answering "
            f"questions the server has not seen; /health in the slices between: {hc_rps:.0f} req/s ({hc_ok} ok, {hc_err} errors)",
            {"ask": c_rps, "health": hc_rps, "slowest_s": c_worst})
        # then every worker has answered the 400 questions once (gunicorn spreads requests, so ask each twice)
        for _ in range(2 * workers):
            _each(warm, threads)
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        rss = [_rss_mib(int(c)) for c in children]
        say("worker_memory", f"{len(rss)} workers: " + ", ".join(f"{r:.0f} MiB" for r in rss) + f" RSS (master {_rss_mib(proc.pid):.0f} MiB)", rss)
        h_rps, h_ok, h_err = _load([base + "/health"], seconds, threads)
        a_rps, a_ok, a_err = _load(warm, seconds, threads)
        say("http_health", f"{h_rps:.0f} req/s ({h_ok} ok, {h_err} errors)", h_rps)
        say("http_ask", f"{a_rps:.0f} req/s ({a_ok} ok, {a_err} errors), {len(warm)} varied questions, answers cached per worker", a_rps)
        say("http_ratio", f"/v1/ask / /health throughput = {a_rps / h_rps:.2f} (goal >= 0.5, zero errors)", a_rps / h_rps)
        say("http_first_ratio", f"/v1/ask of questions not seen before / /health throughput = {c_rps / hc_rps:.3f} "
            f"(goal >= 0.1, no error, none over 2 s; in alternating slices of {min(seconds, 10) / 5:.0f} s)", c_rps / hc_rps)
    finally:
        _stop(proc)


def health_under_checks(base: str, clients: int = 50, chars: int = 20_000, seconds: float = 20.0) -> dict:
    """/health latency (p50, p99, worst) while ``clients`` clients each POST texts of ``chars``
    characters to /v1/check, every one new to the server (nothing cached), for ``seconds``; and the
    statuses both got (the engine's queue answers the surplus 503 with Retry-After, never a 5xx else)."""
    import collections
    texts = check_texts(clients, chars - 20)
    stop = time.perf_counter() + seconds
    checks: collections.Counter = collections.Counter()
    health: list[float] = []
    health_status: collections.Counter = collections.Counter()
    lock = threading.Lock()

    def post(body: bytes) -> int:
        req = urllib.request.Request(base + "/v1/check", data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=seconds + 60) as r:
                r.read()
                return r.status
        except urllib.error.HTTPError as e:
            e.read()
            return e.code
        except Exception:
            return -1

    def checker(i: int) -> None:
        n = 0
        while time.perf_counter() < stop:
            n += 1
            status = post(json.dumps({"text": f"{texts[i]} [{i}.{n}]"}).encode())
            with lock:
                checks[status] += 1
            if status == 503:
                time.sleep(0.5)

    def prober() -> None:
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            try:
                status = _get(base + "/health", timeout=60)
            except Exception:
                status = -1
            with lock:
                health.append(time.perf_counter() - t0)
                health_status[status] += 1
            time.sleep(0.05)
    ts = [threading.Thread(target=checker, args=(i,)) for i in range(clients)] + [threading.Thread(target=prober)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(seconds + 120)
    health.sort()
    pick = (lambda q: health[min(len(health) - 1, int(q * len(health)))] if health else float("nan"))
    return {"health_p50_ms": pick(0.5) * 1000, "health_p99_ms": pick(0.99) * 1000,
            "health_max_ms": (health[-1] if health else float("nan")) * 1000, "health_statuses": dict(health_status),
            "check_statuses": dict(checks)}


def bench_health_under_checks(seconds: float, workers: int = 2) -> None:
    proc, base, _ = _start_server(_free_port(), workers)
    if proc is None:
        say("http_health_under_checks", "server did not start within 120 s")
        return
    try:
        r = health_under_checks(base, 50, 20_000, max(seconds, 10))
        fivexx = sum(n for s, n in r["check_statuses"].items() if s >= 500 and s != 503) + \
            sum(n for s, n in r["health_statuses"].items() if s != 200)
        say("http_health_under_checks",
            f"/health p99 {r['health_p99_ms']:.0f} ms (p50 {r['health_p50_ms']:.0f}, worst {r['health_max_ms']:.0f}) while 50 "
            f"clients POST 20,000-character checks; checks: {r['check_statuses']} (503: the engine queue is full, "
            f"with Retry-After); other 5xx or failed /health: {fivexx} (goal: p99 <= 200 ms, none)", r)
    finally:
        _stop(proc)


#: the parts of a run, in order (``--only`` picks some)
PARTS = ("engine_vs_raw", "quality", "questions", "check", "check_scaling", "http", "health_under_checks", "audit")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    ap.add_argument("--synth", default="10000,100000", help="synthetic KB sizes to audit (comma-separated)")
    ap.add_argument("--questions", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=15, help="duration of each HTTP load run")
    ap.add_argument("--audit-timeout", type=float, default=1800,
                    help="seconds each audit child may take (the largest also re-audits twice)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--only", help="only these parts (comma-separated): " + ", ".join(PARTS)
                    + "; e.g. --only audit --synth 10000")
    ap.add_argument("--audit-child", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--cli-child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--audit-cli-only", metavar="KB_DIR",
                    help="only time `gpukb --kb KB_DIR audit --json` to a file (wall time, peak RSS) and exit")
    args = ap.parse_args()
    global QUIET
    QUIET = QUIET or args.quiet
    if args.audit_child:
        _audit_child(*args.audit_child)
        return 0
    if args.cli_child:
        _cli_child(*args.cli_child)
        return 0
    if args.audit_cli_only:
        out = Path(tempfile.mkdtemp(prefix="gpukb-bench-")) / "cli.json"
        try:
            c = _cli(args.audit_cli_only, args.audit_cli_only, out, args.audit_timeout)
        finally:
            shutil.rmtree(out.parent, ignore_errors=True)
        print(json.dumps(c))
        return 0 if c else 1
    sizes = [int(x) for x in args.synth.split(",") if x.strip()]
    if args.quick:
        sizes, args.questions, args.seconds, args.audit_timeout = [500, 1000], 100, 3, 120
    only = set(x.strip() for x in (args.only or "").split(",") if x.strip())
    if only - set(PARTS):
        ap.error(f"--only: unknown part(s) {', '.join(sorted(only - set(PARTS)))} (known: {', '.join(PARTS)})")
    print(f"gpukb benchmarks on {os.cpu_count()} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}")
    run = {"engine_vs_raw": bench_engine_vs_raw, "quality": bench_quality,
           "questions": lambda: bench_questions(args.questions),
           "check": lambda: bench_check(50 if args.quick else 300),
           "check_scaling": lambda: bench_check_scaling(repeat=1 if args.quick else 3),
           "http": lambda: bench_http(args.seconds), "health_under_checks": lambda: bench_health_under_checks(args.seconds),
           "audit": lambda: bench_audit(sizes, args.audit_timeout)}
    for name in PARTS:
        if not only or name in only:
            run[name]()
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
