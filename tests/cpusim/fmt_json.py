#!/usr/bin/env python3
"""fmt_json.py FILE... - rewrites JSON files in the problems' layout: containers
holding only scalars (or only such containers, up to 100 columns) on one line,
the rest indented by 2."""
import json
import sys


def flat(o):
    return isinstance(o, (dict, list)) and all(not isinstance(v, (dict, list)) for v in (o.values() if isinstance(o, dict) else o))


def enc(o, ind):
    pad, inner = " " * ind, " " * (ind + 2)
    one = json.dumps(o, separators=(", ", ": "))
    if not isinstance(o, (dict, list)) or flat(o) or len(one) + ind <= 100:
        return one
    if isinstance(o, dict):
        items = ["%s%s: %s" % (inner, json.dumps(k), enc(v, ind + 2)) for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + enc(v, ind + 2) for v in o]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


for path in sys.argv[1:]:
    data = json.load(open(path))
    open(path, "w").write(enc(data, 0) + "\n")
