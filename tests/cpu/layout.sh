#!/usr/bin/env bash
# layout.sh - the shape of the code that docs/architecture.md promises:
#
#   - each binary links only its own folder, the codecs of the boundaries it
#     sits on (wire/) and the shared libraries: read from the link maps the
#     Makefile writes (BUILD/maps/NAME.map, the linker's LOAD lines), so the
#     runner's trusted code base is what this test lists;
#   - no C file of the project is over 1,500 lines;
#   - every header compiles on its own (self-contained, as docs/style.md asks).
#
#   tests/cpu/layout.sh BUILD_DIR
set -u
build=${1:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# What each binary may link, as patterns over the project's paths in its map.
declare -A allowed=(
    [blockwise-runner]='^(obj/judge/runner/|obj/harness_blob\.o$|obj/wire/(runner_proto[a-z_]*|ipc)\.o$|libsandbox\.a$|libcommon\.a$)'
    [blockwise-compile]='^(obj/judge/compile/|obj/wire/compile_wire\.o$|libsandbox\.a$|libcommon\.a$)'
    [blockwise-triton-compile]='^(obj/judge/triton/|obj/triton_driver_blob\.o$|obj/triton_launcher_blob\.o$|obj/wire/compile_wire\.o$|libsandbox\.a$|libcommon\.a$)'
    [judged]='^(obj/judge/worker/(judged_main|cli_[a-z_]+)\.o$|libworker\.a$|libplan\.a$|libproblem\.a$|obj/wire/(worker_proto|runner_proto[a-z_]*|ipc|compile_wire)\.o$|libsandbox\.a$|libcommon\.a$)'
    [blockwise-server]='^(obj/server/main\.o$|libserver\.a$|libproblem\.a$|obj/wire/worker_proto\.o$|libcommon\.a$)'
)
for bin in "${!allowed[@]}"; do
    map=$build/maps/$bin.map
    if [ ! -s "$map" ]; then
        bad "$bin: no link map $map (build with make first)"
        continue
    fi
    loaded=$(sed -n "s|^LOAD $build/||p" "$map")
    stray=$(grep -Ev "${allowed[$bin]}" <<<"$loaded" | grep -v '^/' | tr '\n' ' ')
    if [ -z "$loaded" ]; then
        bad "$bin: its map lists nothing of the project"
    elif [ -n "$stray" ]; then
        bad "$bin links what is not its own: $stray"
    else
        ok "$bin links only $(tr '\n' ' ' <<<"$loaded" | sed 's/ $//')"
    fi
done

# The runner, in particular, pulls nothing of the worker, the server, the
# compilers or the launch language out of an archive either.
if [ -s "$build/maps/blockwise-runner.map" ]; then
    members=$(grep -oE '^[^ ]*lib[a-z]+\.a\([a-z_0-9]+\.o\)' "$build/maps/blockwise-runner.map" | sort -u)
    if grep -qE 'lib(worker|server|plan|problem)\.a' <<<"$members"; then
        bad "blockwise-runner pulls $(grep -E 'lib(worker|server|plan|problem)\.a' <<<"$members" | tr '\n' ' ')"
    else
        ok "blockwise-runner's archive members: $(sed "s|$build/||" <<<"$members" | tr '\n' ' ')"
    fi
fi

# No file over 1,500 lines.
big=$(git ls-files 'common/*.[ch]' 'judge/*.[ch]' 'plan/*.[ch]' 'problem/*.[ch]' 'wire/*.[ch]' \
    'server/*.[ch]' | xargs wc -l | awk '$2 != "total" && $1 > 1500 { print $2 " (" $1 ")" }')
if [ -n "$big" ]; then
    bad "files over 1,500 lines: $(tr '\n' ' ' <<<"$big")"
else
    ok "no C file of the project over 1,500 lines"
fi

# Every header compiles alone.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
broken=()
n=0
while read -r h; do
    n=$((n + 1))
    printf '#include "%s"\n' "$h" >"$tmp/one.c"
    if ! gcc -std=c11 -D_GNU_SOURCE -fsyntax-only -Wall -Werror -I. -isystem "$cuda/include" \
        "$tmp/one.c" 2>"$tmp/err"; then
        broken+=("$h: $(head -n 1 "$tmp/err")")
    fi
done < <(git ls-files 'common/*.h' 'judge/*.h' 'plan/*.h' 'problem/*.h' 'wire/*.h' 'server/*.h' |
    grep -v '/kernels/')
if [ ${#broken[@]} -gt 0 ]; then
    bad "headers that do not compile alone: ${broken[*]}"
else
    ok "all $n headers compile alone"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
