# Shared by the bench scripts: locations, building a benchmark program, medians, the machine line.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${UMBRA_BUILD_DIR:-$root/build}"

# build_bench NAME: builds bench/NAME into $build/bench/NAME and prints the path of its dll.
build_bench() {
  dotnet build "$root/bench/$1/$1.csproj" -c Release --nologo -v quiet -o "$build/bench/$1" \
    -p:BaseIntermediateOutputPath="$build/bench/obj-$1/" >/dev/null
  echo "$build/bench/$1/$1.dll"
}

# median: the median of the numbers on stdin (whitespace separated).
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

machine_line() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); runtime $(dotnet --list-runtimes | grep NETCore.App | tail -1 | cut -d' ' -f2)"
}
