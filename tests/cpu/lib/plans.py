#!/usr/bin/env python3
"""plans.py PLAN.json - the case plans of a `judged plan` output, one line per case and a
"--" line after each configuration, in a form two files can be compared in: configuration
names left out (a @tune's and a @triton.autotune's differ); each case's name, buffers (name,
dtype, count, role) and launches (kernel, grid, arguments with their offsets, constexprs,
num_warps, num_stages, maxnreg), with scratch buffers named by their order, scratch0,
scratch1, ... (a @scratch's name and a launcher's tmpN differ). Used by
tests/cpu/triton-launcher.sh and tests/gpu/triton-launcher.sh to check that a control
converted to a solve(...) launcher records the plans of its directive form."""
import json
import sys

d = json.load(open(sys.argv[1]))
for cfg in d["configs"]:
    for c in cfg["cases"]:
        bufs = c.get("buffers", [])
        scratch = [b["name"] for b in bufs if b["role"] == "scratch"]

        def name(n):
            return "scratch%d" % scratch.index(n) if n in scratch else n

        def args(launch):
            return [dict(a, buffer=name(a["buffer"])) if "buffer" in a else a for a in launch["args"]]

        print(c["name"], [(name(b["name"]), b["dtype"], b["count"], b["role"]) for b in bufs],
              [(l["kernel"], l["grid"], args(l), l["constexprs"], l["num_warps"], l["num_stages"],
                l.get("maxnreg")) for l in c.get("launches", [])], c.get("error"))
    print("--")
