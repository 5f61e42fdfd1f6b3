#!/usr/bin/env bash
# Checks the deployment recipes in deploy/ offline, so they are tested rather than only written:
#
#   bash Tools/deploy/check.sh .build/debug/empty-state-server
#
#   compose     deploy/compose.yaml through `docker-compose config` (Debian's docker-compose 1.29
#               needs no engine for it), with placeholder secrets; and refused without them
#   kubernetes  deploy/kubernetes/*.yaml through `kubernetes-validate --strict` (the schemas of
#               the Kubernetes release it bundles; unknown fields fail); the probes use the
#               service's real health paths
#   systemd     deploy/systemd/empty-state-server.service through `systemd-analyze verify`, and
#               `systemd-analyze security --offline` at an exposure of 2.0 or less. verify needs
#               ExecStart's binary to exist, so a copy of the unit runs the built one
#   flags       every --flag and EMPTY_STATE_* variable the recipes set is one the binary has
#               (--help-hidden)
#   role        deploy/postgres-role.sql on a throwaway PostgreSQL (scripts/postgres.sh), then
#               the binary started as that role: it migrates its schema, publishes a change and
#               stores an event with no more privilege than the file grants
#
# Prints one line per check and exits 1 when any fails. Needs docker-compose, kubernetes-validate
# and systemd-analyze (`make deps-test` installs them); PostgreSQL as scripts/postgres.sh does.
set -uo pipefail
BIN=$(realpath "${1:?usage: check.sh path/to/empty-state-server}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEPLOY=$ROOT/deploy
WORK=$(mktemp -d)
PASSED=0
FAILED=0
trap 'rm -rf "$WORK"' EXIT

pass() { PASSED=$((PASSED + 1)); echo "ok    $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/      /'; }
# check NAME COMMAND…: passes when COMMAND exits 0, else fails with its output.
check() {
    local name=$1 output
    shift
    if output=$("$@" 2>&1); then pass "$name"; else fail "$name" "$output"; fi
}

# -- compose ----------------------------------------------------------------------------------
compose_config() {
    (cd "$DEPLOY" && env POSTGRES_PASSWORD=check-superuser EMPTY_STATE_DB_PASSWORD=check0123456789 \
        EMPTY_STATE_ADMIN_TOKENS=ops:editor:check-0123456789abcdef docker-compose -f compose.yaml config)
}
check "compose: docker-compose config accepts deploy/compose.yaml" compose_config
replicas=$(compose_config 2>/dev/null | grep -cE '^  replica[0-9]+:$')
if [ "$replicas" = 3 ]; then pass "compose: three replicas"; else fail "compose: three replicas" "found $replicas"; fi
if (cd "$DEPLOY" && env -u POSTGRES_PASSWORD -u EMPTY_STATE_DB_PASSWORD -u EMPTY_STATE_ADMIN_TOKENS \
    docker-compose -f compose.yaml --env-file /dev/null config -q) >/dev/null 2>&1; then
    fail "compose: refuses to start without its secrets"
else
    pass "compose: refuses to start without its secrets"
fi

# -- kubernetes -------------------------------------------------------------------------------
check "kubernetes: kubernetes-validate --strict deploy/kubernetes/*.yaml" \
    kubernetes-validate --strict --quiet "$DEPLOY"/kubernetes/*.yaml
probe_paths=$(python3 - "$DEPLOY/kubernetes/deployment.yaml" <<'EOF'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]
container = spec["containers"][0]
print(" ".join(f"{probe}={container[probe]['httpGet']['path']}" for probe in ("readinessProbe", "livenessProbe", "startupProbe")))
EOF
)
if [ "$probe_paths" = "readinessProbe=/readyz livenessProbe=/healthz startupProbe=/healthz" ]; then
    pass "kubernetes: readiness on /readyz, liveness and startup on /healthz"
else
    fail "kubernetes: readiness on /readyz, liveness and startup on /healthz" "$probe_paths"
fi

# -- systemd ----------------------------------------------------------------------------------
unit=$WORK/systemd/empty-state-server.service
mkdir -p "$WORK/systemd"
sed "s#^ExecStart=/usr/local/bin/empty-state-server #ExecStart=$BIN #" \
    "$DEPLOY/systemd/empty-state-server.service" >"$unit"
# verify exits 0 on an unknown or misspelt option (it ignores it with a warning): any output fails.
verify_quietly() {
    local output
    output=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$output" ] || { echo "$output"; return 1; }
}
check "systemd: systemd-analyze verify, without a warning" verify_quietly
check "systemd: systemd-analyze security --offline, exposure at most 2.0" \
    systemd-analyze security --offline=true --threshold=20 --no-pager "$unit"

# -- flags and variables ----------------------------------------------------------------------
help=$("$BIN" --help-hidden)
unknown=""
# (comment lines left out: they show other commands, kubectl's and systemctl's)
for flag in $(cat "$DEPLOY/systemd/empty-state-server.service" "$DEPLOY"/kubernetes/*.yaml | grep -vE '^\s*#' |
    grep -oE -- '(^|[ "])--[a-z][a-z0-9-]*' | tr -d ' "' | sort -u); do
    grep -qE -- "^ +$flag " <<<"$help" || unknown="$unknown $flag"
done
for variable in $(grep -ohE 'EMPTY_STATE_[A-Z_]+' "$DEPLOY"/compose.yaml "$DEPLOY"/kubernetes/*.yaml \
    "$DEPLOY"/systemd/*.service | sort -u); do
    case $variable in EMPTY_STATE_DB_PASSWORD) continue ;; esac # the compose file's own
    grep -q "$variable" <<<"$help" || unknown="$unknown $variable"
done
if [ -z "$unknown" ]; then pass "flags: every flag and variable the recipes set is the binary's"; else
    fail "flags: every flag and variable the recipes set is the binary's" "unknown:$unknown"; fi

# -- the database role ------------------------------------------------------------------------
role_check() {
    local pg=$WORK/pg url port base log pid token auth status
    url=$(bash "$ROOT/scripts/postgres.sh" start "$pg") || return 1
    trap 'bash "$ROOT/scripts/postgres.sh" stop "'"$pg"'" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
    port=$(sed -E 's#.*@[^:]+:([0-9]+)/.*#\1#' <<<"$url")
    # Names of its own: the throwaway server already has the app user empty_state.
    bash "$ROOT/scripts/postgres.sh" psql "$pg" -q -v ON_ERROR_STOP=1 -v password=role-check-0123456789 \
        -v role=es_role_check -v database=es_role_check -d postgres -f "$DEPLOY/postgres-role.sql" || return 1
    log=$WORK/role.log
    EMPTY_STATE_DATABASE_URL="postgres://es_role_check:role-check-0123456789@127.0.0.1:$port/es_role_check?sslmode=disable" \
        "$BIN" --port 0 --data-dir "$WORK/role-data" --log-level notice 2>"$log" &
    pid=$!
    for _ in $(seq 1 100); do
        base=$(grep -o 'http.port=[0-9]*' "$log" | head -n 1 | cut -d= -f2)
        [ -n "$base" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$log"; return 1; }
        sleep 0.2
    done
    [ -n "$base" ] || { kill "$pid"; cat "$log"; return 1; }
    base=http://127.0.0.1:$base
    auth="Authorization: Bearer $(cat "$WORK/role-data/admin-token")"
    status=$(curl -s -H "$auth" "$base/v1/admin/templates/noDocuments" | jq '.template.strings.en | .title = "Role check"' |
        curl -s -o /dev/null -w '%{http_code}' -X PUT -H "$auth" -H 'Content-Type: application/json' \
            -H 'If-Match: "r1"' --data-binary @- "$base/v1/admin/templates/noDocuments/strings/en")
    status="$status $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$base/v1/events" \
        -d '{"id":"'"$(cat /proc/sys/kernel/random/uuid)"'","type":"displayed","templateId":"noDocuments","locale":"en",
             "platform":"ios","appVersion":"1.0.0","occurredAt":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'"}')"
    status="$status $(curl -s "$base/v1/templates/noDocuments?locale=en" | jq -r .title)"
    kill "$pid"
    wait "$pid"
    [ "$status" = "200 202 Role check" ] || { echo "publish, event, read: $status"; cat "$log"; return 1; }
}
check "role: deploy/postgres-role.sql grants what the service needs (migrate, publish, store an event)" role_check

echo "deploy check: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
