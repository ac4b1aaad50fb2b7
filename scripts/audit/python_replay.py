"""The audit's Python surface: each input audit.mjs kept for replay (DIR/replay.jsonl: the config, what JS did with it,
its message, its numbers) goes through `attention_viz.compute`. Python must accept what JS accepts with the same bits
(each head's weights and context, the output), and refuse what JS refuses in the same words; it must never raise
anything but ValueError/TypeError with a message. Prints the counts by kind. Usage: python python_replay.py DIR."""

import json
import math
import sys
import time
from pathlib import Path

import attention_viz as av


def same(a, b):
    a, b = (x.tolist() if hasattr(x, "tolist") else x for x in (a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return (a is None or (isinstance(a, float) and math.isnan(a))) and (b is None or (isinstance(b, float) and math.isnan(b)))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        # JSON's 27670116113211590000 is an int to Python; the float it writes is that double.
        a, b = float(a), float(b)
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def numbers(t):
    if t["mechanism"] == "weights":
        return t["attention"]
    if t["mechanism"] == "cross":
        return [t["weights"], t["context"], None]
    heads = t.get("heads") or [t]
    return [[{"weights": h["weights"], "context": h["context"]} for h in heads], None, t.get("output")]


def js_numbers(t):
    if isinstance(t, list) and len(t) == 3 and isinstance(t[0], list) and t[0] and isinstance(t[0][0], dict):
        return [[{"weights": h["weights"], "context": h["context"]} for h in t[0]], t[1], t[2]]
    return t


def main():
    d = Path(sys.argv[1])
    sys.setrecursionlimit(50_000)  # the inputs nest lists up to 5,000 deep (a parser's limit is one of the tests)
    cases = [json.loads(line) for line in (d / "replay.jsonl").read_text().splitlines() if line.strip()]
    kinds = {"inputs": 0, "accepted": 0, "refused": 0, "panic": 0, "freeze": 0, "unclear": 0, "wrong": 0,
             "differs": 0}
    bad = []
    for case in cases:
        kinds["inputs"] += 1
        c = case["config"]
        t0 = time.perf_counter()
        try:
            trace, error = av.compute(c), None
        except (ValueError, TypeError) as e:
            trace, error = None, str(e)
        except Exception as e:  # anything else reaching the user is a crash of the package
            kinds["panic"] += 1
            bad.append(("panic", f"{type(e).__name__}: {e}", c))
            continue
        if time.perf_counter() - t0 > 1.0:
            kinds["freeze"] += 1
            bad.append(("freeze", f"{time.perf_counter() - t0:.1f} s", c))
        if error is not None:
            kinds["refused"] += 1
            if not error or len(error) > 500 or "internal error" in error:
                kinds["unclear"] += 1
                bad.append(("unclear", error, c))
            if case["outcome"] == "accepted" or (case["message"] is not None and case["message"] != error):
                kinds["differs"] += 1
                bad.append(("differs", f"Python: {error!r}; JS: {case['outcome']} {case['message']!r}", c))
            continue
        kinds["accepted"] += 1
        if case["outcome"] != "accepted":
            kinds["differs"] += 1
            bad.append(("differs", f"Python accepted; JS: {case['message']!r}", c))
            continue
        js = js_numbers(json.loads(case["bits"]))
        mine = numbers(trace)
        if not same(mine, js):
            kinds["wrong"] += 1
            bad.append(("wrong", "Python's numbers differ from JS's", c))
    print(json.dumps(kinds))
    for kind, what, c in bad[:20]:
        print(kind, what[:300], json.dumps(c)[:300])
    (d / "python.json").write_text(json.dumps({"counts": kinds, "bad": [(k, w, json.dumps(c)[:2000]) for k, w, c in bad]}, indent=1))


if __name__ == "__main__":
    main()
