#!/usr/bin/env bash
# install-deps.sh - installs what Blockwise needs to build and test on Debian 12 /
# Ubuntu 22.04+ (run as root). Idempotent: packages already present are kept,
# and a second run changes nothing.
#
# The CUDA toolkit (nvcc, NVRTC, cuda.h) is not in Debian's archive: it must
# already be installed under $CUDA_HOME (default /usr/local/cuda). This script
# checks for it and says how to get it if it is missing.
set -euo pipefail

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

packages=(
    build-essential pkg-config git ca-certificates curl
    jq                   # server tests read JSON replies
    libjansson-dev       # JSON everywhere (problem.json, API, worker protocol)
    libcurl4-openssl-dev # judged's HTTP client to the server
    libseccomp-dev       # syscall filters of the compile and run sandboxes
    libmicrohttpd-dev    # blockwise-server's HTTP
    libsodium-dev        # argon2id password hashes, random tokens
    libsqlite3-dev sqlite3 # the database (the embedded default)
    libpq-dev postgresql # PostgreSQL, for several servers: libpq's header; the test clusters
    libmd4c-dev libmd4c-html0-dev # statements: Markdown to HTML
    python3-numpy        # tests/tritonsim: the CPU Triton simulator (tests/cpu/tritonsim.sh)
    clang clang-format   # format check, libFuzzer targets
    chromium             # browser tests (driven by playwright-core)
    nodejs npm           # web bundle (esbuild) and browser tests
    nginx wrk hyperfine  # benchmarks
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node and npm may come from elsewhere (nodesource, nvm): accept working binaries.
if command -v node >/dev/null && command -v npm >/dev/null; then
    missing=("${missing[@]/nodejs/}")
    missing=("${missing[@]/npm/}")
fi
read -r -a missing <<<"${missing[*]}"
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "install-deps: every Debian package is present"
fi

if [ ! -x "$CUDA_HOME/bin/nvcc" ] || [ ! -e "$CUDA_HOME/include/nvrtc.h" ]; then
    cat >&2 <<MSG
install-deps: the CUDA toolkit was not found under $CUDA_HOME.
Blockwise needs nvcc, NVRTC and cuda.h (CUDA 12.4 or newer; developed with 13.0).
Install it from NVIDIA (https://developer.nvidia.com/cuda-downloads: the
packages cuda-nvcc, cuda-nvrtc-dev and cuda-cudart-dev) or set CUDA_HOME.
MSG
    exit 1
fi
echo "install-deps: CUDA toolkit at $CUDA_HOME ($("$CUDA_HOME/bin/nvcc" --version | tail -n 2 | head -n 1))"
