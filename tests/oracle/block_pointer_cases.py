#!/usr/bin/env python3
"""block_pointer_cases.py - the test and benchmark cases of block-pointer-matmul (P24).

    tests/oracle/block_pointer_cases.py           print the "tests" and "benchmarks" JSON
    tests/oracle/block_pointer_cases.py --check   check problems/block-pointer-matmul/problem.json

Each case is a matmul C = A B over strided views: A(m, k) is A[offA + m*sAm + k*sAk],
B(k, n) is B[offB + k*sBk + n*sBn], C(m, n) is C[offC + m*sCm + n*sCn]. The strides and
offsets are per-case int64 scalars; the buffers are 1-D tensors whose lengths LA, LB, LC are
sizes, exactly the last element of each view plus one (so a write past the view's end lands
in the judge's guard band). --check verifies, for every case of problem.json, that each view
fits its buffer, that no two elements of C's view share an address, and the layout
guarantee the statement makes: every stride and offset is >= 0.
"""
import json
import os
import sys


def rup8(x):
    return (x + 7) // 8 * 8


def view(rows, cols, layout, pad, off, step=1):
    """(offset, row stride, col stride, buffer length) of a rows x cols view.

    layout "row": cols contiguous (col stride `step`), rows ld = rup8(cols*step) + pad apart;
    "col": rows contiguous, columns ld = rup8(rows*step) + pad apart; "dense": contiguous
    row-major with no rounding (ld = cols)."""
    if layout == "dense":
        s_r, s_c = cols, 1
    elif layout == "row":
        s_r, s_c = rup8(cols * step) + pad, step
    else:
        s_r, s_c = step, rup8(rows * step) + pad
    length = off + (rows - 1) * s_r + (cols - 1) * s_c + 1
    return off, s_r, s_c, length


# name, (M, N, K), A layout, B layout, C layout, pads, offsets, [data], [steps]
CASES = [
    ("dense", (1, 1, 1), "dense", "dense", "dense", (0, 0, 0), (0, 0, 0)),
    ("dense", (17, 24, 40), "dense", "dense", "dense", (0, 0, 0), (0, 0, 0)),
    ("dense odd", (33, 7, 129), "dense", "dense", "dense", (0, 0, 0), (0, 0, 0)),
    ("NN padded", (129, 136, 72), "row", "row", "row", (64, 8, 24), (8, 16, 40)),
    ("NT", (127, 129, 131), "row", "col", "row", (8, 16, 0), (0, 24, 8)),
    ("TN", (7, 129, 1000), "col", "row", "row", (8, 0, 8), (16, 0, 0)),
    ("TT", (1000, 129, 7), "col", "col", "row", (0, 8, 64), (0, 8, 16)),
    ("C column-major", (257, 263, 64), "row", "row", "col", (8, 8, 8), (0, 0, 8)),
    ("C sub-view", (100, 200, 520), "row", "col", "row", (0, 0, 312), (8, 0, 1600)),
    ("TN thin", (1, 7, 129), "col", "row", "row", (0, 8, 0), (0, 0, 0)),
    ("NT thin", (129, 1, 7), "row", "col", "col", (8, 0, 0), (0, 8, 0)),
    ("unaligned offsets", (64, 64, 64), "row", "row", "row", (8, 8, 8), (3, 5, 1)),
    ("strided A", (65, 72, 96), "row", "row", "row", (16, 0, 0), (0, 0, 0), "uniform", (2, 1)),
    ("strided B", (33, 40, 48), "row", "row", "row", (0, 8, 0), (0, 0, 0), "uniform", (1, 3)),
    ("positive TT", (129, 1000, 129), "col", "col", "row", (8, 8, 8), (0, 0, 0), "positive"),
    ("TN", (1000, 1000, 1000), "col", "row", "row", (24, 8, 64), (8, 0, 8)),
    ("NT", (512, 1032, 2048), "row", "col", "col", (64, 64, 8), (0, 8, 0)),
]

BENCHES = [
    ("8192^3 NN padded", (8192, 8192, 8192), "row", "row", "row", (64, 64, 64), (0, 0, 0)),
    ("8192^3 TN padded", (8192, 8192, 8192), "col", "row", "row", (64, 64, 64), (0, 0, 0)),
]


def entry(case, bench=False):
    name, (m, n, k), la, lb, lc, pads, offs = case[:7]
    data = case[7] if len(case) > 7 else "uniform"
    step_a, step_b = case[8] if len(case) > 8 else (1, 1)
    # A is M x K with steps along k (row layout) or m (col layout); B likewise.
    off_a, sam, sak, len_a = view(m, k, la, pads[0], offs[0], step_a)
    off_b, sbk, sbn, len_b = view(k, n, lb, pads[1], offs[1], step_b)
    off_c, scm, scn, len_c = view(m, n, lc, pads[2], offs[2])
    return {
        "name": name if bench else f"{name} {m}x{n}x{k}",
        "sizes": [{"M": m, "N": n, "K": k, "LA": len_a, "LB": len_b, "LC": len_c}],
        "data": data,
        "scalars": {"offA": off_a, "sAm": sam, "sAk": sak, "offB": off_b, "sBk": sbk,
                    "sBn": sbn, "offC": off_c, "sCm": scm, "sCn": scn},
    }


def check(path):
    problem = json.load(open(path))
    bad = 0
    for what in ("tests", "benchmarks"):
        for e in problem[what]:
            sc = e["scalars"]
            for s in e["sizes"]:
                m, n, k = s["M"], s["N"], s["K"]
                for name, (off, s0, s1, d0, d1, length) in {
                    "A": (sc["offA"], sc["sAm"], sc["sAk"], m, k, s["LA"]),
                    "B": (sc["offB"], sc["sBk"], sc["sBn"], k, n, s["LB"]),
                    "C": (sc["offC"], sc["sCm"], sc["sCn"], m, n, s["LC"]),
                }.items():
                    last = off + (d0 - 1) * s0 + (d1 - 1) * s1
                    if min(off, s0, s1) < 0 or last >= length:
                        print(f"FAIL {e['name']}: {name} view ends at {last}, buffer {length}")
                        bad += 1
                off, s0, s1 = sc["offC"], sc["sCm"], sc["sCn"]
                if m * n <= 4_000_000:
                    addrs = {off + i * s0 + j * s1 for i in range(m) for j in range(n)}
                    if len(addrs) != m * n:
                        print(f"FAIL {e['name']}: elements of C's view overlap")
                        bad += 1
    print(f"{'ok' if not bad else 'FAIL'}: {path}")
    return 1 if bad else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        return check(os.path.join(root, "problems", "block-pointer-matmul", "problem.json"))
    tests = [entry(c) for c in CASES]
    benches = [entry(c, True) for c in BENCHES]
    print('  "tests": [')
    print(",\n".join("    " + json.dumps(t) for t in tests))
    print("  ],")
    print('  "benchmarks": [')
    print(",\n".join("    " + json.dumps(b) for b in benches))
    print("  ],")
    return 0


if __name__ == "__main__":
    sys.exit(main())
