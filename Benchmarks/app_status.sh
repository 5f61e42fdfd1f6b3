#!/usr/bin/env bash
# GET /v1/app-status against GET /v1/templates/{id} on the same server, in the same run: the
# app-status answer must keep up with a template's (goal: at least 0.9× its throughput), since
# every app launch asks it. One release server, pinned as run.sh pins them, with an iOS policy;
# the requests take turns within each round, and each figure is the median of the rounds.
#
# Called by `make bench` after run.sh. Environment (as run.sh's):
#   BENCH_DURATION (5s), BENCH_ROUNDS (5), BENCH_CONNECTIONS (64), BENCH_THREADS (one per client
#   CPU), BENCH_SERVER_CPUS / BENCH_CLIENT_CPUS (default: first half / other half of the CPUs
#   this process may use), BENCH_SERVER_BIN (a server binary instead of building one).
set -euo pipefail

BENCH_DURATION=${BENCH_DURATION:-5s}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-64}
BENCH_THREADS=${BENCH_THREADS:-}
GOAL_RATIO=0.90

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS="$REPO_ROOT/Benchmarks/results/app-status.md"
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -z $server_pid ]] || { kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; }
  rm -rf "$tmp"
}
trap cleanup EXIT

log() { printf '[bench app-status] %s\n' "$*" >&2; }

# The CPUs: as run.sh, the first half for the server, the other half for wrk.
allowed=$(taskset -cp $$ 2>/dev/null | awk -F': *' '{ print $2 }')
mapfile -t cpus < <(printf '%s\n' "${allowed//,/$'\n'}" | awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next } NF { print }')
half=$((${#cpus[@]} / 2))
server_cpus=${BENCH_SERVER_CPUS-$(printf '%s\n' "${cpus[@]:0:half}" | paste -sd,)}
client_cpus=${BENCH_CLIENT_CPUS-$(printf '%s\n' "${cpus[@]:half}" | paste -sd,)}
server_pin=() client_pin=()
[[ -z $server_cpus ]] || server_pin=(taskset -c "$server_cpus")
[[ -z $client_cpus ]] || client_pin=(taskset -c "$client_cpus")
[[ -n $BENCH_THREADS ]] || BENCH_THREADS=$(printf '%s' "$client_cpus" | tr ',' '\n' | grep -c . || true)
((BENCH_THREADS > 0)) || BENCH_THREADS=2

if [[ -n ${BENCH_SERVER_BIN:-} ]]; then
  server_bin=$BENCH_SERVER_BIN
else
  log "building empty-state-server (release)"
  (cd "$REPO_ROOT" && swift build -c release --static-swift-stdlib --product empty-state-server >&2)
  server_bin="$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)/empty-state-server"
fi

(cd "$REPO_ROOT" && exec "${server_pin[@]}" "$server_bin" --host 127.0.0.1 --port 0 \
  --config-dir config --data-dir "$tmp/data") 2>"$tmp/server.log" &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(grep -oE 'http\.port="?[0-9]+' "$tmp/server.log" | head -n 1 | grep -oE '[0-9]+$' || true)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { cat "$tmp/server.log" >&2; log "the server did not start"; exit 1; }
base="http://127.0.0.1:$port"
status=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $(cat "$tmp/data/admin-token")" \
  -H 'Content-Type: application/json' -H 'If-None-Match: *' "$base/v1/admin/app-policies/ios" \
  -d '{"minimumVersion":"5.0","latestVersion":"5.3.0","minimumOSVersion":"16","blockedVersions":["5.1.2"],
       "storeUrl":"https://apps.apple.com/app/id123456789","rolloutPercentage":50}')
[[ $status == 201 ]] || { log "setting the policy answered $status"; exit 1; }

# name|path: the template row first (the reference), then the app-status answers.
scenarios=(
  "GET /v1/templates/appUpdateRequired|/v1/templates/appUpdateRequired?locale=fr&platform=ios"
  "GET /v1/app-status (updateRequired)|/v1/app-status?platform=ios&appVersion=4.9.3&osVersion=17.4&locale=fr"
  "GET /v1/app-status (ok)|/v1/app-status?platform=ios&appVersion=5.3.0&osVersion=17.4&locale=fr"
  "GET /v1/app-status with instanceId (not memoized)|/v1/app-status?platform=ios&appVersion=5.2.0&osVersion=17.4&locale=fr&instanceId=3f1c2a4e-8b7d-4c59-9e0f-1a2b3c4d5e6f"
)
for scenario in "${scenarios[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base${scenario#*|}")
  [[ $code == 200 ]] || { log "${scenario%%|*} answered $code"; exit 1; }
done

log "server on CPUs ${server_cpus:-any}, wrk on ${client_cpus:-any} ($BENCH_THREADS threads, $BENCH_CONNECTIONS connections), $BENCH_ROUNDS rounds of $BENCH_DURATION"
declare -A figures
for ((round = 1; round <= BENCH_ROUNDS; round++)); do
  for index in "${!scenarios[@]}"; do
    out="$tmp/wrk-$round-$index"
    "${client_pin[@]}" wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"$BENCH_DURATION" \
      "$base${scenarios[$index]#*|}" >"$out" 2>&1
    if grep -q 'Non-2xx' "$out"; then cat "$out" >&2; log "non-2xx answers"; exit 1; fi
    figures[$index]+="$(awk '$1 == "Requests/sec:" { print $2 }' "$out") "
  done
done

median() { printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 } END { printf "%.0f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
reference=$(median "${figures[0]}")
mkdir -p "$(dirname "$RESULTS")"
{
  echo "| request | req/s (median of $BENCH_ROUNDS) | × template | goal ≥ $GOAL_RATIO | rounds |"
  echo "| --- | ---: | ---: | --- | --- |"
  for index in "${!scenarios[@]}"; do
    rps=$(median "${figures[$index]}")
    ratio=$(awk -v a="$rps" -v b="$reference" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
    goal=""
    if ((index == 1 || index == 2)); then
      goal=$(awk -v r="$ratio" -v g="$GOAL_RATIO" 'BEGIN { print (r + 0 >= g + 0) ? "yes" : "no" }')
    fi
    rounds=$(printf '%.0f ' ${figures[$index]})
    echo "| ${scenarios[$index]%%|*} | $rps | $ratio | $goal | ${rounds% } |"
  done
  echo
  echo "\`wrk -t$BENCH_THREADS -c$BENCH_CONNECTIONS -d$BENCH_DURATION\`, one release server pinned to CPUs" \
    "${server_cpus:-(not pinned)}, wrk to ${client_cpus:-(not pinned)}; requests take turns within each round."
} | tee "$RESULTS"
