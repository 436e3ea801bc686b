#!/usr/bin/env bash
# cuinit-ro.sh - does cuInit survive every mount read-only (as blockwise-runner
# does it), and if not, which mount must stay writable?
py='import ctypes; l=ctypes.CDLL("libcuda.so.1"); print("cuInit", l.cuInit(0))'
ro_all_but() { # EXCLUDED_REGEX: remount every mount read-only except matching ones, then cuInit
    awk '{print $5}' /proc/self/mountinfo | while read -r mp; do
        mp=$(printf '%b' "${mp//\\/\\\\0}")
        if [ -n "$1" ] && [[ "$mp" =~ $1 ]]; then continue; fi
        mount -o remount,bind,ro "$mp" 2>/dev/null
    done
    python3 -c "$py" 2>&1 | tail -1
}
export -f ro_all_but; export py
for ex in "" "^/dev/shm" "^/proc" "^/sys" "^/dev" "^/tmp" "^/run" "^/dev(/|$)|^/proc|^/sys"; do
    printf 'user+mount ns, all ro except [%s]: ' "$ex"
    unshare -U -r -m --propagation private bash -c "ro_all_but '$ex'"
    printf 'mount ns (root), all ro except [%s]: ' "$ex"
    unshare -m --propagation private bash -c "ro_all_but '$ex'"
done
awk '{print $5, $4, $9, $6}' /proc/self/mountinfo
