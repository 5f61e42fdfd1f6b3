#!/usr/bin/env bash
# Measures empty-state-server against two plain C libmicrohttpd servers that send the same bytes:
# the baseline (one shared, prebuilt response) and the per-request floor (a fresh response per
# request with a generated X-Request-ID: what a naive MHD server that must tag every answer
# pays). All three run at once and take turns within each round; prints one markdown table.
# See README.md.
#
# Called by `make bench` from the repository root. Environment:
#   BENCH_DURATION     wrk duration per measurement           (default 2s)
#   BENCH_ROUNDS       service/baseline/floor rounds per scenario (default 12)
#   BENCH_WARMUP       wrk warm-up per server per scenario     (default 1s, 0 = none)
#   BENCH_THREADS      wrk threads                             (default: one per client CPU)
#   BENCH_CONNECTIONS  wrk connections                         (default 64)
#   BENCH_SERVER_CPUS  CPUs the servers are pinned to (taskset list; default: the first half)
#   BENCH_CLIENT_CPUS  CPUs wrk is pinned to (default: the other half); set both to "" to pin
#                      nothing (wrk then takes CPU from the server it measures)
#   BENCH_SERVER_BIN   use this server binary instead of building one (e.g. a CI artifact)
#   BENCH_SERVICE_ARGS extra service flags, split on spaces (e.g. "--memo-entries 0")
#   BENCH_ONLY         measure only the scenarios whose name contains this text (e.g.
#                      "experiment"); the others are skipped, their services still start
#   BENCH_MHD1         0 skips the last row: the single template on Debian 13's libmicrohttpd
#                      1.0.x (scripts/libmicrohttpd.sh), service and baselines alike (default 1)
set -euo pipefail

# Many short rounds rather than a few long ones: this machine's speed jumps between two levels
# (about 130k and 160k req/s for every server) that last tens of seconds, and a round's ratio is
# only sound when its service and baseline runs fall in the same level (see Benchmarks/README.md).
BENCH_DURATION=${BENCH_DURATION:-2s}
BENCH_ROUNDS=${BENCH_ROUNDS:-12}
BENCH_WARMUP=${BENCH_WARMUP:-1s}
BENCH_THREADS=${BENCH_THREADS:-}
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-64}
BENCH_SERVER_BIN=${BENCH_SERVER_BIN:-}
BENCH_SERVICE_ARGS=${BENCH_SERVICE_ARGS:-}
BENCH_ONLY=${BENCH_ONLY:-}
BENCH_MHD1=${BENCH_MHD1:-1}

# Goal: service throughput at least this fraction of the (shared-response) baseline's, and
# service p99 at most this. The floor is reported beside it but is not part of the goal.
GOAL_RATIO=0.90
GOAL_P99_MS=2

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$BENCH_DIR/.." && pwd)
RESULTS_DIR="$BENCH_DIR/results"

tmp=""
pids=()
# The libmicrohttpd the servers being started load: the system's (empty), or another one's
# directory (LD_LIBRARY_PATH), with the baseline compiled against that version's header.
lib_env=()
baseline_bin=""

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- parsing wrk output (pure functions, tested on their own) -----------------------------------

# Converts a wrk duration ("830.31us", "1.07ms", "2.00s", "1.50m", "1.00h") to milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (match(v, /^[0-9.]+/) == 0) { exit 1 }
    n = substr(v, 1, RLENGTH); u = substr(v, RLENGTH + 1)
    if (u == "us") f = 0.001; else if (u == "ms") f = 1; else if (u == "s") f = 1000
    else if (u == "m") f = 60000; else if (u == "h") f = 3600000; else exit 1
    printf "%.3f\n", n * f
  }'
}

# Prints the Requests/sec figure of a wrk output file.
parse_rps() {
  local value
  value=$(awk '$1 == "Requests/sec:" { print $2; exit }' "$1")
  [[ -n $value ]] || return 1
  printf '%s\n' "$value"
}

# Prints the 99 % latency of a wrk --latency output file, in milliseconds.
parse_p99() {
  local value
  value=$(awk '/^Latency Distribution/ || /^  Latency Distribution/ { d = 1; next }
               d && $1 == "99%" { print $2; exit }' "$1")
  [[ -n $value ]] || return 1
  to_ms "$value"
}

# Prints what went wrong in a wrk output file (socket errors, non-2xx/3xx answers), or nothing.
parse_errors() {
  awk '
    /^  Socket errors:/ {
      sub(/^  Socket errors: */, "")
      split($0, parts, /, */); bad = 0
      for (i in parts) { split(parts[i], kv, " "); if (kv[2] + 0 > 0) bad = 1 }
      if (bad) out = out (out ? "; " : "") "socket errors: " $0
    }
    /^  Non-2xx or 3xx responses:/ { out = out (out ? "; " : "") "non-2xx/3xx: " $NF }
    END { if (out) print out }' "$1"
}

# Prints the median of its numeric arguments.
median() {
  printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
    END { if (NR == 0) exit 1; if (NR % 2) m = a[(NR + 1) / 2]; else m = (a[NR / 2] + a[NR / 2 + 1]) / 2
          printf "%.3f\n", m }'
}

# Prints the CPU time process $1 has used (all its threads, user and system), in clock ticks.
cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# cpu_per_request TICKS_BEFORE TICKS_AFTER WRK_OUTPUT: the server's CPU time per request in that
# run, in microseconds. Unlike requests per second, it does not count the time the server waited
# for a CPU that other processes held: on a shared machine it moves far less between rounds.
cpu_per_request() {
  local requests
  requests=$(awk '/requests in/ { print $1; exit }' "$3")
  awk -v before="$1" -v after="$2" -v requests="${requests:-0}" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f\n", (requests > 0) ? (after - before) * 1000000 / hz / requests : 0 }'
}

# Prints $1 / $2 with two decimals (0 when $2 is not positive).
ratio_of() {
  awk -v s="$1" -v b="$2" 'BEGIN { printf "%.2f\n", (b > 0) ? s / b : 0 }'
}

# Prints "yes" when the goal is met: ratio >= GOAL_RATIO and service p99 <= GOAL_P99_MS.
goal_met() {
  awk -v r="$1" -v p="$2" -v gr="$GOAL_RATIO" -v gp="$GOAL_P99_MS" \
    'BEGIN { print (r + 0 >= gr + 0 && p + 0 <= gp + 0) ? "yes" : "no" }'
}

# Prints the goal column: "yes", or "no: " and each failed criterion. p99 on a shared loopback
# machine is mostly scheduling, so it says when the baseline misses the p99 goal too.
goal_verdict() {
  local ratio=$1 service_p99=$2 baseline_p99=$3 reasons=()
  [[ $(goal_met "$ratio" 0) == yes ]] || reasons+=("ratio < $GOAL_RATIO")
  if [[ $(goal_met 1 "$service_p99") == no ]]; then
    if [[ $(goal_met 1 "$baseline_p99") == no ]]; then
      reasons+=("p99 > $GOAL_P99_MS ms, baseline's too")
    else
      reasons+=("p99 > $GOAL_P99_MS ms")
    fi
  fi
  if ((${#reasons[@]} == 0)); then
    echo yes
  else
    local IFS=';'
    echo "no: ${reasons[*]}" | sed 's/;/; /g'
  fi
}

# --- CPUs ---------------------------------------------------------------------------------------

# Expands a taskset CPU list ("0-2,5") to one CPU number per line.
expand_cpus() {
  local part
  local IFS=','
  for part in $1; do
    if [[ $part == *-* ]]; then
      seq "${part%-*}" "${part#*-}"
    elif [[ -n $part ]]; then
      echo "$part"
    fi
  done
}

# Joins CPU numbers (one per line on stdin) into a taskset list.
join_cpus() {
  paste -sd, -
}

# Splits the CPUs this script may use between the servers and wrk, unless the caller chose:
# servers on the first half, wrk on the rest. Measured on one shared set of cores, wrk and the
# server take turns on them, and the p99 is the scheduler's time slice rather than the
# server's work (the C baseline alone measured 5-8 ms that way on 2 cores). Sets server_cpus,
# client_cpus and BENCH_THREADS.
split_cpus() {
  local allowed count half
  if [[ -v BENCH_SERVER_CPUS && -v BENCH_CLIENT_CPUS ]]; then
    server_cpus=$BENCH_SERVER_CPUS client_cpus=$BENCH_CLIENT_CPUS
  else
    allowed=$(taskset -cp $$ 2>/dev/null | awk -F': *' '{ print $2 }') || allowed=""
    mapfile -t all < <(expand_cpus "$allowed")
    count=${#all[@]}
    if ((count < 2)); then
      log "warning: fewer than 2 CPUs available ($count): servers and wrk share them"
      server_cpus="" client_cpus=""
    else
      half=$((count / 2))
      server_cpus=$(printf '%s\n' "${all[@]:0:half}" | join_cpus)
      client_cpus=$(printf '%s\n' "${all[@]:half}" | join_cpus)
    fi
  fi
  if [[ -z $BENCH_THREADS ]]; then
    if [[ -n $client_cpus ]]; then
      BENCH_THREADS=$(expand_cpus "$client_cpus" | wc -l)
    else
      BENCH_THREADS=2
    fi
  fi
  [[ $BENCH_THREADS =~ ^[1-9][0-9]*$ ]] || die "BENCH_THREADS must be a positive integer"
  server_pin=() client_pin=()
  [[ -z $server_cpus ]] || server_pin=(taskset -c "$server_cpus")
  [[ -z $client_cpus ]] || client_pin=(taskset -c "$client_cpus")
  log "servers on CPUs ${server_cpus:-any}, wrk on CPUs ${client_cpus:-any} with $BENCH_THREADS threads"
}

# --- processes ---------------------------------------------------------------------------------

# Stops one process we started: SIGTERM, then SIGKILL after 5 s.
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  forget_pid "$pid"
}

# Drops a pid that has been waited for, so cleanup never signals a reused pid.
forget_pid() {
  local keep=() pid
  for pid in "${pids[@]}"; do
    [[ $pid == "$1" ]] || keep+=("$pid")
  done
  pids=("${keep[@]}")
}

cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do
    stop_pid "$pid"
  done
  if [[ -n $tmp && -d $tmp ]]; then
    rm -rf "$tmp"
  fi
  exit "$rc"
}

# Waits up to $3 seconds for a line matching the extended regex $2 (with the number last) in
# file $1, written by process $4; prints the number.
wait_for_port() {
  local file=$1 regex=$2 seconds=$3 pid=$4 i match
  for ((i = 0; i < seconds * 10; i++)); do
    match=$(grep -oE "$regex" "$file" 2>/dev/null | head -n 1 || true)
    if [[ -n $match ]]; then
      printf '%s\n' "${match##*[!0-9]}"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# --- steps -------------------------------------------------------------------------------------

install_missing() {
  local need=() sudo=()
  command -v wrk >/dev/null 2>&1 || need+=(wrk)
  command -v nginx >/dev/null 2>&1 || need+=(nginx)  # the nginx row (Benchmarks/nginx.py)
  command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
  pkg-config --exists libmicrohttpd 2>/dev/null || need+=(libmicrohttpd-dev)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  command -v taskset >/dev/null 2>&1 || need+=(util-linux)
  command -v cc >/dev/null 2>&1 || need+=(gcc)
  ((${#need[@]} > 0)) || return 0
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  log "installing ${need[*]}"
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
  if ! "${apt[@]}" install -y "${need[@]}"; then
    "${apt[@]}" update
    "${apt[@]}" install -y "${need[@]}"
  fi
}

build() {
  if [[ -n $BENCH_SERVER_BIN ]]; then
    server_bin=$BENCH_SERVER_BIN
    log "using $server_bin (BENCH_SERVER_BIN)"
  else
    # The release build `make release` ships (the Swift runtime linked in): the binary measured is
    # the one deployed, and the two builds share .build/release instead of rebuilding each other.
    log "building empty-state-server (release, --static-swift-stdlib)"
    (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib --product empty-state-server >&2)
    server_bin="$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)/empty-state-server"
  fi
  [[ -x $server_bin ]] || die "no server binary at $server_bin"
  log "compiling baseline"
  # shellcheck disable=SC2046 # pkg-config output must split into separate flags
  cc -O2 -Wall -Wextra -o "$tmp/baseline" "$BENCH_DIR/baseline/baseline.c" \
    $(pkg-config --cflags --libs libmicrohttpd)
  baseline_bin=$tmp/baseline
  if [[ $BENCH_MHD1 == 1 ]]; then
    # Debian 13's libmicrohttpd, fetched (once) beside the system's; the baseline is compiled
    # against its header and linked with it, the service binary is the same one, loading it.
    mhd1_root=$(bash "$REPO_ROOT/scripts/libmicrohttpd.sh" root)
    mhd1_version=$(bash "$REPO_ROOT/scripts/libmicrohttpd.sh" version)
    mhd1_libs=$(dirname "$(find "$mhd1_root/usr/lib" -name 'libmicrohttpd.so.12' | head -n 1)")
    log "compiling baseline against libmicrohttpd $mhd1_version"
    cc -O2 -Wall -Wextra -o "$tmp/baseline-mhd1" "$BENCH_DIR/baseline/baseline.c" \
      -I"$mhd1_root/usr/include" -L"$mhd1_libs" -lmicrohttpd
  fi
}

# start_service NAME [flag...]: starts the service (with BENCH_SERVICE_ARGS, then the flags) and
# a data directory of its own; sets service_pid and service_port.
start_service() {
  local name=$1
  shift
  mkdir -p "$tmp/$name-data"
  # At its defaults, as it ships: log level info, so every request gets an access-log line
  # (written to $tmp/NAME.log, like nginx's default access log to a file). The listening line
  # (http.port=N) is logged at notice, so a flag given here cannot raise the level above notice.
  # Pinned like the baselines; its default thread count is one per core it may use.
  local extra=()
  # shellcheck disable=SC2206 # the flags are meant to split on spaces
  [[ -z $BENCH_SERVICE_ARGS ]] || extra=($BENCH_SERVICE_ARGS)
  (cd "$REPO_ROOT" && exec "${lib_env[@]}" "${server_pin[@]}" "$server_bin" --host 127.0.0.1 --port 0 \
    --config-dir config --data-dir "$tmp/$name-data" "${extra[@]}" "$@") >"$tmp/$name.out" 2>"$tmp/$name.log" &
  service_pid=$!
  pids+=("$service_pid")
  if ! service_port=$(wait_for_port "$tmp/$name.log" 'http\.port="?[0-9]+' 10 "$service_pid"); then
    log "service log:"
    cat "$tmp/$name.log" >&2 || true
    if ! kill -0 "$service_pid" 2>/dev/null; then
      local rc=0
      wait "$service_pid" || rc=$?
      forget_pid "$service_pid"
      die "the service exited with status $rc before reporting http.port=<N>"
    fi
    die "the service did not report http.port=<N> within 10 s"
  fi
  log "$name pid $service_pid on port $service_port${*:+ ($*)}"
}

# capture DIR URL-PATH EXPECTED-STATUS [curl args...]: saves the service's exact answer in DIR
# (body, headers) and the header lines the baselines must repeat (baseline-headers, content-type;
# floor-headers for the per-request floor, without X-Request-ID).
capture() {
  local dir=$1 path=$2 expected=$3
  shift 3
  mkdir -p "$dir"
  : >"$dir/body" # curl creates no file when the body is empty (304)
  local status
  status=$(curl -sS --max-time 10 -o "$dir/body" -D "$dir/headers" -w '%{http_code}' "$@" \
    "http://127.0.0.1:$service_port$path") || die "curl $path failed"
  [[ $status == "$expected" ]] || die "GET $path answered $status, expected $expected"
  tr -d '\r' <"$dir/headers" >"$dir/headers.lf"
  # MHD writes Date, Content-Length and Connection itself; Content-Type is the 4th argument.
  awk 'NR > 1 && NF && tolower($0) !~ /^(date|content-length|connection|transfer-encoding|keep-alive|content-type):/' \
    "$dir/headers.lf" >"$dir/baseline-headers"
  # The floor generates its own X-Request-ID per request, so it gets every other header line.
  awk 'tolower($0) !~ /^x-request-id:/' "$dir/baseline-headers" >"$dir/floor-headers"
  header_value "$dir" content-type >"$dir/content-type" || true
  if grep -qi '^connection: *close' "$dir/headers.lf"; then
    log "warning: the service answered $path with Connection: close (no keep-alive)"
  fi
}

# start_experiment TEMPLATE: creates and starts a copy experiment on TEMPLATE through the admin
# API of the service (control and a variant with another English title, 50/50), as an editor
# would.
start_experiment() {
  local template=$1 token document status
  token=$(tr -d '[:space:]' <"$tmp/service-data/admin-token") || die "the service wrote no admin token"
  for status in draft running; do
    document=$(printf '{"id":"bench-copy","templateId":"%s","status":"%s","coverage":1,"primaryMetric":{"type":"anyTap"},"variants":[{"key":"control","weight":0.5},{"key":"b","weight":0.5,"strings":{"en":{"title":"No connection"}}}]}' \
      "$template" "$status")
    local precondition='If-None-Match: *'
    [[ $status == draft ]] || precondition='If-Match: "r1"'
    curl -sS --max-time 10 -o "$tmp/experiment-$status.json" -w '%{http_code}\n' -X PUT \
      -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H "$precondition" \
      --data-binary "$document" "http://127.0.0.1:$service_port/v1/admin/experiments/bench-copy" \
      >"$tmp/experiment-$status.status" || die "PUT the $status experiment failed"
    [[ $(cat "$tmp/experiment-$status.status") == 20[01] ]] ||
      die "PUT the $status experiment answered $(cat "$tmp/experiment-$status.status"): $(cat "$tmp/experiment-$status.json")"
  done
  log "experiment bench-copy running on $template"
}

# header_value DIR NAME: prints the first value of header NAME from DIR/headers.lf.
header_value() {
  header_value_in "$1/headers.lf" "$2"
}

# header_value_in FILE NAME: prints the first value of header NAME (lower case) from a curl -D file.
header_value_in() {
  tr -d '\r' <"$1" | awk -v name="$2" 'NR > 1 { i = index($0, ":")
      if (i && tolower(substr($0, 1, i - 1)) == name) {
        v = substr($0, i + 1); sub(/^[ \t]+/, "", v); print v; found = 1; exit } }
    END { exit !found }'
}

# Prints what the table and messages call a baseline KIND (baseline or floor).
kind_label() {
  if [[ $1 == floor ]]; then echo "per-request floor"; else echo "shared-response baseline"; fi
}

# start_baseline DIR STATUS KIND: starts the C baseline with the captured answer of DIR; sets
# started_pid and started_port. KIND "baseline" answers with one shared response; KIND "floor"
# runs it with BASELINE_PER_REQUEST=1 (a fresh response per request plus a generated
# X-Request-ID), so it gets the captured headers without the service's X-Request-ID line.
# Output goes to DIR/KIND.out and DIR/KIND.log.
start_baseline() {
  local dir=$1 status=$2 kind=$3 per_request=0 headers=baseline-headers extra=()
  if [[ $kind == floor ]]; then
    per_request=1
    headers=floor-headers
  fi
  mapfile -t extra <"$dir/$headers"
  # Emptied here, not by the redirection below, which runs in the child: a scenario measured a
  # second time (the memo-off one) must not read the port of the previous start.
  : >"$dir/$kind.out"
  # Set either way, so a BASELINE_PER_REQUEST in the caller's environment changes nothing.
  BASELINE_PER_REQUEST=$per_request "${lib_env[@]}" "${server_pin[@]}" "$baseline_bin" 0 "$status" "$dir/body" \
    "$(cat "$dir/content-type")" "${extra[@]}" >"$dir/$kind.out" 2>"$dir/$kind.log" &
  started_pid=$!
  pids+=("$started_pid")
  if ! started_port=$(wait_for_port "$dir/$kind.out" 'port=[0-9]+' 5 "$started_pid"); then
    cat "$dir/$kind.log" >&2 || true
    die "the $(kind_label "$kind") did not start"
  fi
}

# check_baseline DIR PATH EXPECTED KIND PORT [curl args...]: checks that the baseline KIND on
# PORT sends the same status and body bytes as the service did; for the floor, also that each
# answer carries a fresh X-Request-ID (i.e. BASELINE_PER_REQUEST took effect).
check_baseline() {
  local dir=$1 path=$2 expected=$3 kind=$4 port=$5
  shift 5
  local label status
  label=$(kind_label "$kind")
  : >"$dir/$kind-body"
  status=$(curl -sS --max-time 10 -o "$dir/$kind-body" -D "$dir/$kind-headers.raw" \
    -w '%{http_code}' "$@" "http://127.0.0.1:$port$path") || die "curl $label failed"
  [[ $status == "$expected" ]] || die "$label answered $status, expected $expected"
  cmp -s "$dir/body" "$dir/$kind-body" || die "$label body differs from the service's"
  # Same header names (values such as Date may differ): both answers cost the same to write.
  local service_names baseline_names
  service_names=$(header_names "$dir/headers")
  baseline_names=$(header_names "$dir/$kind-headers.raw")
  if [[ $service_names != "$baseline_names" ]]; then
    log "warning: header names differ: service [$service_names], $label [$baseline_names]"
  fi
  if [[ $kind == floor ]]; then
    local first second
    curl -sS --max-time 10 -o /dev/null -D "$dir/$kind-headers-2.raw" "$@" \
      "http://127.0.0.1:$port$path" || die "curl $label failed"
    first=$(header_value_in "$dir/$kind-headers.raw" x-request-id) ||
      die "$label sent no X-Request-ID"
    second=$(header_value_in "$dir/$kind-headers-2.raw" x-request-id) ||
      die "$label sent no X-Request-ID"
    [[ $first != "$second" ]] ||
      die "$label sent X-Request-ID $first twice: not a per-request response"
  fi
}

# Prints the sorted, lower-cased header names of a curl -D file on one line.
header_names() {
  tr -d '\r' <"$1" | awk 'NR > 1 && (i = index($0, ":")) { print tolower(substr($0, 1, i - 1)) }' |
    sort | tr '\n' ' '
}

# run_wrk OUT PORT PATH DURATION [wrk args...]: one wrk run, in the background so a signal
# reaches our trap at once.
run_wrk() {
  local out=$1 port=$2 path=$3 duration=$4
  shift 4
  "${client_pin[@]}" wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"$duration" --latency "$@" \
    "http://127.0.0.1:$port$path" >"$out" 2>&1 &
  local pid=$! rc=0
  pids+=("$pid")
  wait "$pid" || rc=$?
  forget_pid "$pid"
  ((rc == 0)) || { cat "$out" >&2; die "wrk failed against port $port (exit $rc)"; }
}

is_zero_duration() { [[ $1 =~ ^0+[a-z]*$ ]]; }

# bench_scenario DIR NAME PATH STATUS [header...]: measures one scenario, whose answer capture
# saved in DIR, against both baselines and appends its table row.
bench_scenario() {
  local dir=$1 name=$2 path=$3 status=$4
  shift 4
  if [[ -n $BENCH_ONLY && $name != *"$BENCH_ONLY"* ]]; then
    log "$name: skipped (BENCH_ONLY=$BENCH_ONLY)"
    return 0
  fi
  local curl_args=() wrk_args=() h
  for h in "$@"; do
    curl_args+=(-H "$h")
    wrk_args+=(-H "$h")
  done
  local baseline_pid baseline_port floor_pid floor_port
  start_baseline "$dir" "$status" baseline
  baseline_pid=$started_pid baseline_port=$started_port
  start_baseline "$dir" "$status" floor
  floor_pid=$started_pid floor_port=$started_port
  check_baseline "$dir" "$path" "$status" baseline "$baseline_port" "${curl_args[@]}"
  check_baseline "$dir" "$path" "$status" floor "$floor_port" "${curl_args[@]}"
  log "$name: service :$service_port, baseline :$baseline_port, floor :$floor_port" \
    "($(wc -c <"$dir/body") body bytes)"

  local targets=(service baseline floor) target
  local -A port_of=([service]=$service_port [baseline]=$baseline_port [floor]=$floor_port)
  local -A pid_of=([service]=$service_pid [baseline]=$baseline_pid [floor]=$floor_pid)
  if ! is_zero_duration "$BENCH_WARMUP"; then
    for target in "${targets[@]}"; do
      run_wrk "$dir/warmup" "${port_of[$target]}" "$path" "$BENCH_WARMUP" "${wrk_args[@]}"
    done
  fi

  local s_rps=() b_rps=() f_rps=() s_p99=() b_p99=() f_p99=() s_cpu=() b_cpu=() errors="" round out e rps p99
  local ticks_before cpu
  for ((round = 1; round <= BENCH_ROUNDS; round++)); do
    for target in "${targets[@]}"; do
      out="$dir/wrk-$target-$round"
      ticks_before=$(cpu_ticks "${pid_of[$target]}")
      run_wrk "$out" "${port_of[$target]}" "$path" "$BENCH_DURATION" "${wrk_args[@]}"
      cpu=$(cpu_per_request "$ticks_before" "$(cpu_ticks "${pid_of[$target]}")" "$out")
      {
        printf '### %s: %s, round %d\n' "$name" "$target" "$round"
        cat "$out"
        echo
      } >>"$RESULTS_DIR/latest-wrk.log"
      rps=$(parse_rps "$out") || die "no Requests/sec in wrk output ($out)"
      p99=$(parse_p99 "$out") || die "no 99% latency in wrk output ($out)"
      e=$(parse_errors "$out")
      [[ -z $e ]] || errors+="${errors:+; }$target round $round: $e"
      case $target in
        service) s_rps+=("$rps") s_p99+=("$p99") s_cpu+=("$cpu") ;;
        baseline) b_rps+=("$rps") b_p99+=("$p99") b_cpu+=("$cpu") ;;
        floor) f_rps+=("$rps") f_p99+=("$p99") ;;
      esac
      log "  round $round $target: $rps req/s, p99 $p99 ms, CPU $cpu µs/request${e:+ ($e)}"
    done
  done
  stop_pid "$floor_pid"
  stop_pid "$baseline_pid"

  local sm bm fm sp bp fp ratio floor_ratio goal
  sm=$(median "${s_rps[@]}")
  bm=$(median "${b_rps[@]}")
  fm=$(median "${f_rps[@]}")
  sp=$(median "${s_p99[@]}")
  bp=$(median "${b_p99[@]}")
  fp=$(median "${f_p99[@]}")
  # Ratios are paired: each round's service figure over the baseline's of the same round (run
  # seconds apart), then the median of those. Drift of the shared machine over the minutes a
  # scenario takes then falls on both sides of each ratio rather than on the medians apart.
  local i b_ratios=() f_ratios=()
  for ((i = 0; i < ${#s_rps[@]}; i++)); do
    b_ratios+=("$(ratio_of "${s_rps[i]}" "${b_rps[i]}")")
    f_ratios+=("$(ratio_of "${s_rps[i]}" "${f_rps[i]}")")
  done
  ratio=$(ratio_of "$(median "${b_ratios[@]}")" 1)
  floor_ratio=$(ratio_of "$(median "${f_ratios[@]}")" 1)
  # CPU time per request, paired the same way: baseline's ÷ service's (so 0.90 means the service
  # spends 1/0.90 of the baseline's CPU time on a request).
  local c_ratios=() cpu_ratio
  for ((i = 0; i < ${#s_cpu[@]}; i++)); do
    c_ratios+=("$(ratio_of "${b_cpu[i]}" "${s_cpu[i]}")")
  done
  cpu_ratio=$(ratio_of "$(median "${c_ratios[@]}")" 1)
  goal=$(goal_verdict "$ratio" "$sp" "$bp")
  [[ -z $errors ]] || goal="no (errors)"
  rows+=("$(printf '| %s | %.0f | %.0f | %s | %s | %.0f | %s | %.2f ms | %.2f ms | %.2f ms | %s |' \
    "$name" "$sm" "$bm" "$ratio" "$cpu_ratio" "$fm" "$floor_ratio" "$sp" "$bp" "$fp" "$goal")")
  local detail="- $name — service req/s: ${s_rps[*]}; baseline req/s: ${b_rps[*]}; floor req/s: ${f_rps[*]}"
  detail+="; ratio per round: ${b_ratios[*]}; vs floor: ${f_ratios[*]}"
  detail+="; service p99 ms: ${s_p99[*]}; baseline p99 ms: ${b_p99[*]}; floor p99 ms: ${f_p99[*]}"
  detail+="; CPU µs per request, service: ${s_cpu[*]}; baseline: ${b_cpu[*]}; CPU ratio per round: ${c_ratios[*]}"
  details+=("$detail${errors:+; ERRORS: $errors}")
}

report() {
  local wrk_version cpu
  wrk_version=$({ wrk -v 2>&1 || true; } | head -n 1)
  cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
  {
    echo "# empty-state-server benchmark"
    echo
    echo "| scenario | service req/s | shared-response baseline req/s | ratio | CPU ratio | per-request floor req/s" \
      "| ratio vs floor | service p99 | baseline p99 | floor p99 | goal met? |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Floor: the same C server building a fresh response per request with a generated" \
      "X-Request-ID, as a naive server must to tag every answer (the service instead reuses" \
      "response objects and swaps that one header). Ratio vs floor = service ÷ floor; not part" \
      "of the goal."
    echo "CPU ratio: the baseline's CPU time per request ÷ the service's (both processes, every" \
      "thread, user and system, from /proc/PID/stat over each run), median of the rounds: what a" \
      "request costs each, which time spent waiting for a CPU other processes held does not change."
    echo "Goal: ratio (vs the shared-response baseline) ≥ $GOAL_RATIO and service p99" \
      "≤ $GOAL_P99_MS ms. Ratios are the median of the per-round ratios (service ÷ baseline of" \
      "the same round); req/s and p99 columns are the median of the rounds."
    echo "Each figure: median of $BENCH_ROUNDS rounds of \`wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS" \
      "-d$BENCH_DURATION --latency\`, service, baseline and floor taking turns in each round" \
      "of the same run. Servers pinned to CPUs ${server_cpus:-(not pinned)}, wrk to CPUs" \
      "${client_cpus:-(not pinned)}; each server runs one thread per CPU it is given."
    [[ -z ${web_json_sizes:-} ]] ||
      echo "A web JSON answer with its inline SVG ($web_json): ${web_json_sizes}."
    echo
    echo "Per round:"
    echo
    printf '%s\n' "${details[@]}"
    echo
    echo "Machine: $(nproc) online cores${cpu:+ ($cpu)}, $(uname -sr); $wrk_version;" \
      "libmicrohttpd $(pkg-config --modversion libmicrohttpd) (the system's; the last row:" \
      "${mhd1_version:-not measured}, Debian 13's); $(date -u '+%Y-%m-%d %H:%M:%S UTC')."
    echo "Server: $server_bin${BENCH_SERVICE_ARGS:+ $BENCH_SERVICE_ARGS}"
  } >"$RESULTS_DIR/latest.md"
  cat "$RESULTS_DIR/latest.md"
  log "table written to ${RESULTS_DIR#"$REPO_ROOT"/}/latest.md, raw wrk output in latest-wrk.log"
}

main() {
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  [[ $BENCH_ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/empty-state-bench.XXXXXX")
  mkdir -p "$RESULTS_DIR"
  : >"$RESULTS_DIR/latest-wrk.log"

  install_missing
  split_cpus
  build
  start_service service

  rows=()
  details=()
  local single='/v1/templates/connectionRefused?locale=fr&platform=ios'
  local bundle='/v1/templates?locale=de&platform=android'
  local fragment='/v1/web/templates/connectionRefused?locale=fr'
  local web_json='/v1/templates/connectionRefused?locale=fr&platform=web'

  # The 304 scenario needs the ETag of the 200 answer, so capture that one first.
  capture "$tmp/scenario-1" "$single" 200
  local etag
  etag=$(header_value "$tmp/scenario-1" etag) || die "GET $single has no ETag header"
  capture "$tmp/scenario-2" "$single" 304 -H "If-None-Match: $etag"
  [[ ! -s $tmp/scenario-2/body ]] || die "the 304 answer has a body"
  capture "$tmp/scenario-3" "$bundle" 200 -H 'Accept-Encoding: gzip'
  [[ $(header_value "$tmp/scenario-3" content-encoding || true) == gzip ]] ||
    die "GET $bundle with Accept-Encoding: gzip has no Content-Encoding: gzip"
  gzip -t <"$tmp/scenario-3/body" || die "the bundle body is not valid gzip"
  capture "$tmp/scenario-4" "$fragment" 200
  [[ $(header_value "$tmp/scenario-4" content-type || true) == text/html* ]] ||
    die "GET $fragment is not text/html"
  # Not a throughput row: how much the inline SVG costs a web JSON answer on the wire.
  capture "$tmp/web-json" "$web_json" 200 -H 'Accept-Encoding: gzip'
  gzip -t <"$tmp/web-json/body" || die "the web JSON body is not valid gzip"
  web_json_sizes="$(gzip -dc <"$tmp/web-json/body" | wc -c) bytes, $(wc -c <"$tmp/web-json/body") gzip"

  bench_scenario "$tmp/scenario-1" "single template (fr, ios)" "$single" 200
  bench_scenario "$tmp/scenario-2" "304 revalidation" "$single" 304 "If-None-Match: $etag"
  bench_scenario "$tmp/scenario-3" "gzip bundle (de, android)" "$bundle" 200 'Accept-Encoding: gzip'
  bench_scenario "$tmp/scenario-4" "HTML fragment (fr, web)" "$fragment" 200

  # A template in a running copy experiment, asked for with an install id: never remembered (the
  # answer depends on a header outside the memo key), so every request is parsed, routed, hashed
  # (GrowthBook's FNV-1a of the install id) and answered from the variant's prepared
  # representation. Beside the memoized single template above; last on this service, as it
  # changes what the template answers.
  start_experiment connectionRefused
  local install='X-Install-ID: 3f2c8d4e-51b7-4c1e-9a0d-6b2f7e8c9d10'
  capture "$tmp/scenario-5" "$single" 200 -H "$install"
  [[ $(header_value "$tmp/scenario-5" cache-control || true) == private,* ]] ||
    die "GET $single with $install is not Cache-Control: private"
  [[ $(header_value "$tmp/scenario-5" vary || true) == *X-Install-ID* ]] ||
    die "GET $single with $install does not vary on X-Install-ID"
  bench_scenario "$tmp/scenario-5" "template in a running experiment, with X-Install-ID" "$single" 200 "$install"

  # The scenarios above repeat one request, which the service answers from its memo after the
  # first time. The same single template with the memo off takes the whole path on every
  # request: parsing, routing, negotiation, the lookup of the pre-rendered representation.
  stop_pid "$service_pid"
  start_service service-memo-off --memo-entries 0
  bench_scenario "$tmp/scenario-1" "single template, memo off" "$single" 200

  # Beside the headline rows (at the defaults, access log on): the same single template with the
  # access log off, to show what the log costs.
  stop_pid "$service_pid"
  start_service service-quiet --log-level notice
  bench_scenario "$tmp/scenario-1" "single template, --log-level notice (no access log)" "$single" 200

  # The headline row again on Debian 13's libmicrohttpd: the same service binary loading it, and
  # the baselines compiled against it (the ratio is against a bare C server on the same version).
  if [[ $BENCH_MHD1 == 1 ]]; then
    stop_pid "$service_pid"
    lib_env=(env "LD_LIBRARY_PATH=$mhd1_libs")
    baseline_bin=$tmp/baseline-mhd1
    start_service service-mhd1
    local running
    running=$(grep -o 'http\.libmicrohttpd=[^ ]*' "$tmp/service-mhd1.log" | head -n 1 | cut -d= -f2)
    [[ $running == "$mhd1_version" ]] || die "the service runs on libmicrohttpd ${running:-?}, not $mhd1_version"
    capture "$tmp/scenario-mhd1" "$single" 200
    bench_scenario "$tmp/scenario-mhd1" "single template (fr, ios), libmicrohttpd $mhd1_version" "$single" 200
    lib_env=()
    baseline_bin=$tmp/baseline
  fi

  report
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
