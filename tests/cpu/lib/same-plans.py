#!/usr/bin/env python3
"""same-plans.py DIRECTIVE.json LAUNCHER.json - do two `judged plan` outputs record the same plans?

Used by tests/cpu/triton-launcher.sh for the problem controls converted from directives
to a launcher (solve). Compared, per configuration (in order; their names are not) and
per case: every launch (kernel, grid, arguments with their offsets, constexprs,
num_warps, num_stages, maxnreg) and every buffer (name, dtype, role, count), a scratch
buffer named by its place among the case's scratch buffers (a launcher's are tmp1,
tmp2, ...; a @scratch has its own name). A scratch buffer's count may be larger in the
launcher: where it depends on the autotuned config, a launcher makes the buffer before
the launch that picks the config, so for the config that needs the most
(docs/submission-format.md, kernel.best_config); it must then be the largest count the
directive form has for that case and buffer over its configurations.

Prints "CASES LARGER" (case plans compared, scratch counts sized for another config)
and exits 0, or prints the first differences and exits 1.
"""
import json
import sys


def norm(case):
    scratch = [b["name"] for b in case["buffers"] if b["role"] == "scratch"]
    names = {n: "scratch%d" % i for i, n in enumerate(scratch)}

    def arg(a):
        return dict(a, buffer=names.get(a["buffer"], a["buffer"])) if "buffer" in a else a

    buffers = [dict(b, name=names.get(b["name"], b["name"])) for b in case["buffers"]]
    launches = [dict(l, args=[arg(a) for a in l["args"]]) for l in case.get("launches", [])]
    rest = {k: v for k, v in case.items() if k not in ("buffers", "launches")}
    return buffers, launches, rest


def main(directive, launcher):
    a, b = (json.load(open(f)) for f in (directive, launcher))
    if len(a["configs"]) != len(b["configs"]):
        return ["%d configurations, the launcher %d" % (len(a["configs"]), len(b["configs"]))], 0, 0
    largest = {}
    for cfg in a["configs"]:
        for i, case in enumerate(cfg["cases"]):
            for buf in norm(case)[0]:
                key = (i, buf["name"])
                largest[key] = max(largest.get(key, 0), buf["count"])
    diffs, cases, larger = [], 0, 0
    for x, y in zip(a["configs"], b["configs"]):
        if len(x["cases"]) != len(y["cases"]):
            diffs.append("config %d: %d cases, the launcher %d" % (x["index"], len(x["cases"]), len(y["cases"])))
            continue
        for i, (p, q) in enumerate(zip(x["cases"], y["cases"])):
            cases += 1
            (bp, lp, rp), (bq, lq, rq) = norm(p), norm(q)
            where = "config %d case %s" % (x["index"], p.get("name"))
            if lp != lq:
                diffs.append("%s: launches %s, the launcher %s" % (where, json.dumps(lp), json.dumps(lq)))
            if rp != rq or len(bp) != len(bq):
                diffs.append("%s: %s, the launcher %s" % (where, (rp, bp), (rq, bq)))
                continue
            for u, v in zip(bp, bq):
                if dict(u, count=0) != dict(v, count=0):
                    diffs.append("%s: buffer %s, the launcher %s" % (where, u, v))
                elif u["count"] != v["count"]:
                    if u["role"] == "scratch" and v["count"] == largest[(i, u["name"])]:
                        larger += 1
                    else:
                        diffs.append("%s: %s has %d elements, the launcher's %d" % (where, u["name"], u["count"], v["count"]))
    return diffs, cases, larger


if __name__ == "__main__":
    diffs, cases, larger = main(sys.argv[1], sys.argv[2])
    if diffs:
        print("differ: %d differences; %s" % (len(diffs), "; ".join(diffs[:3]))[:2000])
        sys.exit(1)
    print(cases, larger)
