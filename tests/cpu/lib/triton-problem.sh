# triton-problem.sh - sourced by the CPU suites (server.sh, server_judged.sh,
# browser.sh): a problem offered in Triton as well as CUDA, for tests of the
# server and the web app that need one whatever problems/ holds today.
#
#   triton_problem SRC_DIR DEST_DIR [ID]
#
# copies the problem directory SRC_DIR to DEST_DIR/ID (ID: SRC_DIR's name).
# If it has no starter.py yet, it gets a Triton starter.py and solution.py
# (an element-wise add of its two inputs, one program per BLOCK elements, the
# arguments named after its tensors and first size) and their control
# entries in problem.json; if it has them, they are kept as they are. With
# another ID, "id" is changed to it and "number" to NUMBER (default 99).
# Needs jq. Returns non-zero on failure.
triton_problem() {
    local src=$1 dest=$2 id=${3:-$(basename "$1")} number=${NUMBER:-99}
    local out=$dest/$id
    rm -rf "$out" && mkdir -p "$dest" && cp -r "$src" "$out" || return 1
    local j=$out/problem.json
    if [ "$id" != "$(basename "$src")" ]; then
        jq --arg id "$id" --argjson n "$number" '.id = $id | .number = $n' "$j" >"$j.new" &&
            mv "$j.new" "$j" || return 1
    fi
    [ -f "$out/starter.py" ] && [ -f "$out/solution.py" ] && return 0
    local ins outs n args
    ins=$(jq -r '[.tensors[] | select(.role == "in") | .name] | join(",")' "$j")
    outs=$(jq -r '[.tensors[] | select(.role != "in") | .name][0]' "$j")
    n=$(jq -r '.sizes[0]' "$j")
    args="${ins//,/, }, $outs, $n"
    cat >"$out/starter.py" <<PY
# The kernel runs as one program per BLOCK elements: program p handles
# elements p*BLOCK .. p*BLOCK + BLOCK - 1, masked past the end.
#
# @const BLOCK=1024
# @launch add_kernel grid=(cdiv($n, BLOCK)) num_warps=4 args=($args, BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # TODO: the offsets of this program's elements, a mask, two loads, a store
PY
    sed -e '/# TODO/d' "$out/starter.py" >"$out/solution.py"
    cat >>"$out/solution.py" <<'PY'
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, a + b, mask=mask)
PY
    jq '.controls["solution.py"] = "Accepted" | .controls["starter.py"] = "Wrong Answer"' "$j" \
        >"$j.new" && mv "$j.new" "$j"
}
