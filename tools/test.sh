#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests, end-to-end tests on the real .NET runtime,
# and the unit tests again under ASan+UBSan and TSan. Ends with ctest's summary; exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
umbra_install_node
umbra_install_browser
umbra_install_go
umbra_setup -DUMBRA_BUILD_TESTS=ON -DUMBRA_SANITIZER_TESTS=ON
cd "$UMBRA_BUILD_DIR"
ctest -j "$(nproc)" --output-on-failure "$@"
