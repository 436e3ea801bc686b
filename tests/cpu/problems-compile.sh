#!/usr/bin/env bash
# problems-compile.sh - every problem loads, every control of every problem
# compiles with the judge's own path (directives, NVRTC in the compile sandbox
# for sm_90a, every @tune combination, kernel signatures checked against the
# @launch lines), and the shipped solutions spill no registers. Triton (.py)
# controls are listed as skipped: this machine has no Triton compiler.
#
#   tests/cpu/problems-compile.sh BUILD [PROBLEM...]
#
# It runs `judged validate --json` with no GPU, which stops each control after
# compiling ("compiled"), and reads the per-kernel resource report. One test
# per control. Ends with "N passed, N failed, N skipped".
set -u
build=${1:-build}
shift || true
judged=$build/bin/judged
if [ -e /dev/nvidia0 ]; then
    echo "  skip: a GPU is present (tests/gpu/validate.sh covers this machine)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
problems=("$@")
[ ${#problems[@]} -eq 0 ] && mapfile -t problems < <(cd problems && ls -d */ | tr -d /)
out=$build/test-logs/problems-compile.json
mkdir -p "$(dirname "$out")"
dirs=()
for p in "${problems[@]}"; do dirs+=("problems/$p"); done
HOME=$(mktemp -d) "$judged" validate --json "${dirs[@]}" >"$out" 2>"$out.err"
python3 - "$out" "${problems[@]}" <<'PY'
import json, sys
path, wanted = sys.argv[1], sys.argv[2:]
try:
    data = json.load(open(path))
except Exception as e:
    print(f"FAIL judged validate gave no JSON: {e}")
    print("0 passed, 1 failed, 0 skipped")
    sys.exit(1)
p = f = s = 0
for pid in wanted:
    if pid not in data:
        f += 1
        print(f"FAIL {pid}: did not load (see {path}.err)")
        continue
    for row in data[pid]:
        r = row.get("result", {})  # a skipped control (no Triton here) has none
        name = f"{pid}/{row['file']}"
        if row["file"].endswith(".py"):
            s += 1  # Triton: no Triton compiler on this machine; tests/gpu/validate.sh judges it
            print(f"skip {name}: a Triton control (this test compiles the CUDA ones)")
            continue
        if row["got"] != "compiled":
            f += 1
            diag = (r.get("diagnostics") or [{}])[0]
            print(f"FAIL {name}: {r.get('verdict_name')}: {r.get('message')} "
                  f"(line {diag.get('line')}: {diag.get('message', '')})")
            continue
        spills = [k["name"] for k in r.get("kernels", [])
                  if k.get("spill_store_bytes", 0) or k.get("spill_load_bytes", 0)]
        if row["file"] == "solution.cu" and spills:
            f += 1
            print(f"FAIL {name}: the solution spills registers in {', '.join(spills)}")
            continue
        p += 1
        print(f"ok   {name}")
print(f"{p} passed, {f} failed, {s} skipped")
sys.exit(1 if f else 0)
PY
