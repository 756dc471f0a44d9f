#!/usr/bin/env bash
# Install tczoo and everything it uses into ./.venv (system packages via apt when root).
#
#   bash scripts/install.sh            # everything: local model, KNN embedder, HF datasets, Ray, RL trainers, evalplus, tests,
#                                      # and the contest languages (Kotlin, Haskell, Rust, Go, PyPy: Debian's packages)
#   TCZOO_EXTRAS=dev bash scripts/install.sh   # lean: no local model, no torch, no contest languages
#   TCZOO_LANGUAGES=1 / 0 bash scripts/install.sh   # the contest languages with / without the rest
#
# llama-cpp-python builds from source (7-11 minutes). A native build crashes (SIGSEGV in
# the AMX matmul) on recent Intel CPUs, so it is built for AVX2 without AMX.
set -euo pipefail
cd "$(dirname "$0")/.."

EXTRAS="${TCZOO_EXTRAS:-local,embed,hf,dist,serve,rl,evalplus,dev}"
# The contest languages real problem packages use beside C, C++, Java and Python (issue 48):
# ~160 MB of downloads, ~3 minutes of apt on a 2-core machine. Without them, a submission in
# one of them is counted and shown as "cannot run" (tczoo doctor lists what is here).
if [ "$EXTRAS" = "dev" ]; then LANGUAGES="${TCZOO_LANGUAGES:-0}"; else LANGUAGES="${TCZOO_LANGUAGES:-1}"; fi
VENV="${TCZOO_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

need_apt=()
command -v g++ >/dev/null || need_apt+=(g++)
command -v gcc >/dev/null || need_apt+=(gcc)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v cmake >/dev/null || need_apt+=(cmake)
# WEDGE fuzzes C/C++ references with AFL++ (Debian's build has the Python custom-mutator
# support it needs); without it WEDGE uses its pure-Python loop
command -v afl-fuzz >/dev/null || need_apt+=(afl++)
# the run browser's test opens the site in a real browser (Playwright drives this one;
# its own browser downloads are not used)
command -v chromium >/dev/null || need_apt+=(chromium)
if [ "$LANGUAGES" = 1 ]; then
    # Debian's own: kotlinc 1.3 (Kattis' Kotlin), GHC 9.0, rustc 1.63, Go 1.19, PyPy 3.9
    [ -x /usr/bin/kotlinc ] || need_apt+=(kotlin)
    [ -x /usr/bin/ghc ] || need_apt+=(ghc)
    [ -x /usr/bin/rustc ] || need_apt+=(rustc)   # (a rustup rustc under ~/.cargo is not one the jail can run)
    [ -x /usr/bin/go ] || need_apt+=(golang-go)
    [ -x /usr/bin/pypy3 ] || need_apt+=(pypy3)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    echo "installing system packages: ${need_apt[*]}"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

"$PYTHON" -m venv "$VENV"
PIP="$VENV/bin/python -m pip"
$PIP install -q --upgrade pip setuptools wheel

if [[ "$EXTRAS" == *embed* || "$EXTRAS" == *rl* ]]; then
    # torch 2.13.0 is the CPU build available here; a bare "torch" would pull GBs of CUDA.
    # (The rl extra's trl and verl need torch and pull no second one once this is in.)
    $PIP install -q "torch==2.13.0"
fi
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF}"
$PIP install -q -e ".[${EXTRAS}]"
if [[ "$EXTRAS" == *evalplus* ]]; then
    # evalplus-mut uses evalplus's type-aware mutator; evalplus's own requirements (openai,
    # anthropic, transformers, datasets, tree-sitter ...) are for its code generation and
    # evaluation, not the mutator: the extra installed what the mutator imports
    $PIP install -q --no-deps "evalplus==0.3.1"
fi
echo "tczoo installed in $VENV ($("$VENV/bin/tczoo" --help >/dev/null && echo ok))"
