#!/usr/bin/env bash
# Shared set-up for demo.sh and test.sh: installs the Debian packages umbra builds with (when root; otherwise
# prints the exact apt-get line), checks for the .NET SDK, and configures + builds into $UMBRA_BUILD_DIR.
# Usage: source tools/setup.sh; umbra_setup [extra cmake args...]
set -euo pipefail

UMBRA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
UMBRA_BUILD_DIR="${UMBRA_BUILD_DIR:-$UMBRA_ROOT/build}"
UMBRA_PACKAGES=(cmake ninja-build g++ pkg-config libunwind-dev libboost-dev libspdlog-dev libgtest-dev libbenchmark-dev
  rapidjson-dev zlib1g-dev            # zlib: gzip for pprof files
  libelf-dev libdw-dev                # elfutils: native frames named from full symbol tables and debug files
  libc6-dbg                           # libc's debug file, which a native symbol test names libc's own functions from
  libcurl4-openssl-dev                # libcurl (its headers; the library is loaded only to push to Pyroscope)
  clang-14 libclang-rt-14-dev)        # libFuzzer, for tests/fuzz

umbra_install_packages() {
  local missing=()
  for p in "${UMBRA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  if [ "$(id -u)" -eq 0 ]; then
    echo "umbra: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "umbra: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

# node and npm validate speedscope files in the tests; install Debian's only when none is on PATH.
umbra_install_node() {
  if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" -eq 0 ]; then
    echo "umbra: installing nodejs npm"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    echo "umbra: node and npm are needed for the tests; run:" >&2
    echo "  sudo apt-get install -y nodejs npm" >&2
    exit 1
  fi
}

# The HTML report is tested in a real browser.
umbra_install_browser() {
  if command -v chromium >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" -eq 0 ]; then
    echo "umbra: installing chromium (for the HTML report's test)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "umbra: chromium is needed for the tests; run:" >&2
    echo "  sudo apt-get install -y chromium" >&2
    exit 1
  fi
}

# The tests read pprof files with pprof itself (`go tool pprof`, from Debian's Go).
umbra_install_go() {
  if command -v go >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" -eq 0 ]; then
    echo "umbra: installing golang-go (for pprof, which the pprof tests read their files with)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null
  else
    echo "umbra: go is needed for the tests (go tool pprof); run:" >&2
    echo "  sudo apt-get install -y golang-go" >&2
    exit 1
  fi
}

umbra_check_dotnet() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "umbra: the .NET SDK (dotnet) is not on PATH; install it, then run this again" >&2
    exit 1
  fi
}

umbra_setup() {
  umbra_install_packages
  umbra_check_dotnet
  cmake -S "$UMBRA_ROOT" -B "$UMBRA_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$UMBRA_BUILD_DIR" -j "$(nproc)"
}
