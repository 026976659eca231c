#!/usr/bin/env bash
# Builds umbra (as tools/demo.sh does) and runs every benchmark in one run, alternating the variants of each
# measurement, then rewrites the measured part of bench/RESULTS.md (the analysis around it stays).
# Usage: tools/bench.sh [--runs N] [--quick] [--only SECTION,...]   (about 40 minutes with the default 5 runs on 2 cores)
#   --only runs just those sections (e.g. --only real: the dotnet build, the web API and the test suite; every
#   name is in bench/run_bench.py --help) and prints their tables; RESULTS.md is rewritten only by a run of every
#   section, so that all its numbers come from one run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
UMBRA_PACKAGES+=(python3 time)  # the driver, and GNU time for peak RSS
umbra_setup -DUMBRA_BUILD_TESTS=OFF
python3 "$UMBRA_ROOT/bench/run_bench.py" "$UMBRA_BUILD_DIR" "$@"
