# fake-triton.sh - sourced by the CPU suites: a venv whose site-packages holds
# the fake triton package (tests/fake/triton, a symbolic link, as an editable
# install has it), so the judge's Triton path runs here without Triton.
#
#   fake_triton_venv DIR     makes DIR/bin/python3; prints nothing; non-zero on failure
#
# BLOCKWISE_PYTHON=DIR/bin/python3 then points judged at it. The interpreter
# is the real one (sys.executable), never a pyenv shim, which would not read
# the venv's pyvenv.cfg.
fake_triton_venv() {
    local venv=$1 pyver pyexe
    pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') || return 1
    pyexe=$(python3 -c 'import sys; print(sys.executable)') || return 1
    mkdir -p "$venv/bin" "$venv/lib/python$pyver/site-packages" &&
        ln -sfn "$(realpath tests/fake/triton)" "$venv/lib/python$pyver/site-packages/triton" &&
        ln -sf "$pyexe" "$venv/bin/python3" &&
        printf 'home = %s\ninclude-system-site-packages = false\n' "$(dirname "$pyexe")" \
            >"$venv/pyvenv.cfg"
}
