#!/usr/bin/env bash
# From a fresh Debian machine with the .NET SDK to a first profile: installs what is missing, builds umbra and the
# bundled sample (samples/OrderService), profiles it in shadow mode and prints its call tree.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
umbra_setup -DUMBRA_BUILD_TESTS=OFF

app="$UMBRA_BUILD_DIR/demo/OrderService"
dotnet build "$UMBRA_ROOT/samples/OrderService/OrderService.csproj" -c Release --nologo -v quiet \
  -o "$app" -p:BaseIntermediateOutputPath="$UMBRA_BUILD_DIR/demo/obj/" >/dev/null

echo
echo "\$ umbra run -o $UMBRA_BUILD_DIR/demo/profile -- dotnet $app/OrderService.dll"
"$UMBRA_BUILD_DIR/umbra" run -o "$UMBRA_BUILD_DIR/demo/profile" --min-percent 2 -- dotnet "$app/OrderService.dll"
echo
head -n "${UMBRA_DEMO_LINES:-60}" "$UMBRA_BUILD_DIR/demo/profile.txt" | cut -c1-160
echo
echo "Full reports: $UMBRA_BUILD_DIR/demo/profile.txt and $UMBRA_BUILD_DIR/demo/profile.json"
