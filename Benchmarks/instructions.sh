#!/usr/bin/env bash
# Instructions per request, service beside the bare C baseline, on the system's libmicrohttpd and
# on Debian 13's (scripts/libmicrohttpd.sh): the figure that wall-clock rounds cannot give on a
# shared machine. Counted with valgrind's callgrind, which counts the instructions the process
# executes whatever else runs: repeatable to a few instructions per request, even under load.
#
#   bash Benchmarks/instructions.sh path/to/empty-state-server     (make bench runs it)
#
# For each library: the server (its defaults: access log on, the memo) and the baseline
# (Benchmarks/baseline/baseline.c compiled against that library's header, one shared response
# with the service's headers) each run under callgrind with one thread; after a warm-up, counting
# is switched on for `wrk -t1 -c8 -d${INSTRUCTIONS_SECONDS:-8}s` on the single template, then the
# count is divided by the requests wrk made. Kernel time (the system calls, the same for both:
# one recv and one sendmsg per request) is not counted; it is most of a request's cost, so the
# instruction ratio is far below the throughput ratio and only says where user-space time goes.
#
# glibc's memset is told not to use `rep stosb` (GLIBC_TUNABLES), which callgrind counts once per
# byte: libmicrohttpd zeroes a connection's memory pool between requests (32 KiB for the baseline,
# MHD's default; 16 KiB for the service, --header-memory-limit), and the count would otherwise
# be mostly that. valgrind 3.19 cannot read the DWARF 5 of Swift 6.3 binaries, so a copy without
# debug information is run. Installs valgrind (and wrk, curl) with apt-get when missing.
set -euo pipefail
BIN=$(realpath "${1:?usage: instructions.sh path/to/empty-state-server}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SECONDS_MEASURED=${INSTRUCTIONS_SECONDS:-8}
TARGET='/v1/templates/connectionRefused?locale=fr&platform=ios'
export GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=0x7fffffffffffffff

log() { printf '[instructions] %s\n' "$*" >&2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/empty-state-instructions.XXXXXX")
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

need=()
command -v valgrind >/dev/null || need+=(valgrind)
command -v wrk >/dev/null || need+=(wrk)
command -v curl >/dev/null || need+=(curl)
if ((${#need[@]} > 0)); then
    log "installing ${need[*]}"
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi
objcopy --strip-debug "$BIN" "$tmp/server"

# wait_for FILE REGEX PID: prints the number the first match of REGEX ends with in FILE.
wait_for() {
    local match
    for _ in $(seq 1 600); do
        match=$(grep -oE "$2" "$1" 2>/dev/null | head -n 1 || true)
        if [ -n "$match" ]; then
            echo "${match##*[!0-9]}"
            return 0
        fi
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# count NAME PORT PID: warm-up, then counts `SECONDS_MEASURED` seconds of load; prints Ir/request.
count() {
    local name=$1 port=$2 pid=$3 requests total
    wrk -t1 -c8 -d2s "http://127.0.0.1:$port$TARGET" >/dev/null
    callgrind_control -i on "$pid" >/dev/null 2>&1
    wrk -t1 -c8 -d"${SECONDS_MEASURED}s" "http://127.0.0.1:$port$TARGET" >"$tmp/$name.wrk"
    callgrind_control -d "$pid" >/dev/null 2>&1
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
    requests=$(awk '/requests in/ { print $1 }' "$tmp/$name.wrk")
    total=$(for file in "$tmp/$name".cg*; do
        callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    done | sort -n | tail -n 1)
    echo $((total / requests))
}

# measure LABEL [LIBRARY_DIR INCLUDE_DIR]: one row.
measure() {
    local label=$1 libs=${2:-} include=${3:-} env=() port pid service baseline
    [ -z "$libs" ] || env=(env "LD_LIBRARY_PATH=$libs")
    log "$label: the service under callgrind"
    "${env[@]}" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/service.cg" \
        "$tmp/server" --host 127.0.0.1 --port 0 --threads 1 --data-dir "$tmp/data-$RANDOM" \
        >"$tmp/service.out" 2>"$tmp/service.log" &
    pid=$!
    pids+=("$pid")
    port=$(wait_for "$tmp/service.log" 'http\.port=[0-9]+' "$pid") || { cat "$tmp/service.log" >&2; exit 1; }
    local running
    running=$(grep -o 'http\.libmicrohttpd=[^ ]*' "$tmp/service.log" | head -n 1 | cut -d= -f2)
    curl -s -o "$tmp/body" -D "$tmp/headers" "http://127.0.0.1:$port$TARGET"
    service=$(count service "$port" "$pid")
    rm -f "$tmp"/service.cg*

    log "$label: the baseline under callgrind"
    if [ -n "$include" ]; then
        cc -O2 -o "$tmp/baseline" "$HERE/baseline/baseline.c" -I"$include" -L"$libs" -lmicrohttpd
    else
        # shellcheck disable=SC2046 # pkg-config output must split into separate flags
        cc -O2 -o "$tmp/baseline" "$HERE/baseline/baseline.c" $(pkg-config --cflags --libs libmicrohttpd)
    fi
    local content_type extra=()
    content_type=$(tr -d '\r' <"$tmp/headers" | awk -F': ' 'tolower($1) == "content-type" { print $2 }')
    mapfile -t extra < <(tr -d '\r' <"$tmp/headers" |
        awk 'NR > 1 && NF && tolower($0) !~ /^(date|content-length|connection|content-type):/')
    : >"$tmp/baseline.out"
    "${env[@]}" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/baseline.cg" \
        "$tmp/baseline" 0 200 "$tmp/body" "$content_type" "${extra[@]}" >"$tmp/baseline.out" 2>"$tmp/baseline.log" &
    pid=$!
    pids+=("$pid")
    port=$(wait_for "$tmp/baseline.out" 'port=[0-9]+' "$pid") || { cat "$tmp/baseline.log" >&2; exit 1; }
    baseline=$(count baseline "$port" "$pid")
    rm -f "$tmp"/baseline.cg*
    printf '| %s | %s | %d | %d | %+d |\n' "$label" "${running:-?}" "$service" "$baseline" \
        $((service - baseline)) >>"$tmp/rows"
}

measure "the system's"
mhd1_root=$(bash "$ROOT/scripts/libmicrohttpd.sh" root)
mhd1_libs=$(dirname "$(find "$mhd1_root/usr/lib" -name 'libmicrohttpd.so.12' | head -n 1)")
measure "Debian 13's" "$mhd1_libs" "$mhd1_root/usr/include"

echo
echo "## Instructions per request (callgrind), single template, memo and access log on"
echo
echo "| libmicrohttpd | version | service | bare C baseline | service − baseline |"
echo "| --- | --- | ---: | ---: | ---: |"
cat "$tmp/rows"
echo
echo "User-space instructions only (the system calls, most of a request's time and the same for" \
    "both, are not counted); ${SECONDS_MEASURED} s of \`wrk -t1 -c8\` after a 2 s warm-up, one server" \
    "thread, memset without \`rep stosb\`. Server: $BIN"
