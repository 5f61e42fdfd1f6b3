#!/usr/bin/env bash
# Proves that the self-contained release build (`make release`) runs on a host with no Swift
# toolchain: a Debian 13 root made with `debootstrap --variant=minbase trixie`, plus only the
# packages docs/deployment.md lists (libmicrohttpd12t64 zlib1g libsqlite3-0 ca-certificates). The
# binary is started there with chroot(8) and must
#   - need no library outside that root (no libswift*, no libFoundation*, no toolchain path),
#   - start on the root's libmicrohttpd (1.0.x) and log it,
#   - serve a template, take an admin write (a template created with the generated editor token,
#     then served), ingest events (POST /v1/events, then counted in the summary),
#   - exit 0 on SIGTERM.
#
#   bash Tools/release/check-debian13.sh .build/release-static/release/empty-state-server
#
# Runs as root (chroot and mount need it; `sudo` otherwise). The root is made once in
# .debian13-root/ (ignored by git; ~150 MB, about a minute and a half with the downloads) and
# reused while its package list is the same; CHECK_DEBIAN13_FRESH=1 makes a new one. /proc is
# mounted in it for the run (a binary linked with --static-swift-stdlib reads its arguments from
# /proc/self/cmdline) and unmounted afterwards, also on failure. The mirror is the system's own
# (debian.sources or sources.list), else deb.debian.org. Prints one line per check and exits 1
# when any fails.
set -uo pipefail
BIN=$(realpath "${1:?usage: check-debian13.sh path/to/empty-state-server}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CHECK_DEBIAN13_DIR:-$ROOT/.debian13-root}
PACKAGES=libmicrohttpd12t64,zlib1g,libsqlite3-0,ca-certificates
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
PASSED=0
FAILED=0
WORK=$(mktemp -d)
SERVER=""
MOUNTED=""

pass() { PASSED=$((PASSED + 1)); echo "ok    $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1${2:+ — $2}"; }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi; }

cleanup() {
    [ -n "$SERVER" ] && kill -KILL "$SERVER" 2>/dev/null
    [ -n "$MOUNTED" ] && $SUDO umount "$TARGET/proc" 2>/dev/null
    [ -n "$TARGET" ] && $SUDO rm -rf "$TARGET/srv/empty-state"
    rm -rf "$WORK"
}
trap cleanup EXIT

mirror() {
    local uri=""
    [ -r /etc/apt/sources.list.d/debian.sources ] &&
        uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
    [ -z "$uri" ] && [ -r /etc/apt/sources.list ] &&
        uri=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2; exit }' /etc/apt/sources.list)
    echo "${uri:-http://deb.debian.org/debian}"
}

# -- the root -------------------------------------------------------------------------------------
command -v debootstrap >/dev/null || {
    echo "installing debootstrap"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq debootstrap >/dev/null
}
if [ "${CHECK_DEBIAN13_FRESH:-0}" = 1 ] || [ "$(cat "$TARGET/.packages" 2>/dev/null)" != "$PACKAGES" ]; then
    $SUDO rm -rf "$TARGET"
    started=$(date +%s)
    if ! $SUDO debootstrap --variant=minbase --include="$PACKAGES" trixie "$TARGET" "$(mirror)" \
        >"$WORK/debootstrap.log" 2>&1; then
        tail -n 20 "$WORK/debootstrap.log"
        fail "debootstrap --variant=minbase trixie with $PACKAGES"
        exit 1
    fi
    echo "$PACKAGES" | $SUDO tee "$TARGET/.packages" >/dev/null
    pass "a Debian 13 minbase root with $PACKAGES ($(($(date +%s) - started)) s)"
else
    pass "a Debian 13 minbase root with $PACKAGES (made before, in ${TARGET#"$ROOT"/})"
fi
if [ -e "$TARGET/usr/bin/swift" ] || ls "$TARGET"/usr/lib/*/libswiftCore.so* >/dev/null 2>&1; then
    fail "the root has no Swift toolchain or runtime"
else
    pass "the root has no Swift toolchain or runtime"
fi
root_mhd=$($SUDO chroot "$TARGET" dpkg-query -W -f '${Version}' libmicrohttpd12t64 2>/dev/null)

# -- the binary's libraries -------------------------------------------------------------------------
needed=$(readelf -d "$BIN" | awk '/\(NEEDED\)/ { gsub(/[\[\]]/, "", $NF); print $NF }' | sort | tr '\n' ' ')
unexpected=$(tr ' ' '\n' <<<"$needed" | grep -vE '^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz|libsqlite3|libmicrohttpd|ld-linux-x86-64|ld-linux-aarch64)\.so' | grep . | tr '\n' ' ')
if [ -z "$unexpected" ]; then
    pass "the binary loads only system libraries: $needed"
else
    fail "the binary loads only system libraries" "also $unexpected"
fi
# SwiftPM sets RUNPATH to $ORIGIN (the binary's own directory); a toolchain's lib/swift/linux
# there would mean the runtime is loaded from it.
runpath=$(readelf -d "$BIN" | awk '/RUNPATH|RPATH/ { gsub(/[\[\]]/, "", $NF); print $NF }' | tr ':' '\n' |
    grep -v '^\$ORIGIN$' | grep . | tr '\n' ' ')
expect_eq "the binary's RUNPATH points at nothing but its own directory" "" "$runpath"
$SUDO mkdir -p "$TARGET/srv/empty-state"
$SUDO install -m 0755 "$BIN" "$TARGET/srv/empty-state/empty-state-server"
if $SUDO chroot "$TARGET" /usr/bin/ldd /srv/empty-state/empty-state-server >"$WORK/ldd.log" 2>&1 \
    && ! grep -q 'not found' "$WORK/ldd.log"; then
    pass "every library it needs is in the root (ldd)"
else
    fail "every library it needs is in the root (ldd)" "$(grep 'not found' "$WORK/ldd.log" | tr '\n' ' ')"
fi

# -- the run ----------------------------------------------------------------------------------------
$SUDO mount -t proc proc "$TARGET/proc" && MOUNTED=1
LOG="$WORK/server.log"
: >"$LOG"
$SUDO chroot "$TARGET" /srv/empty-state/empty-state-server --host 127.0.0.1 --port 0 \
    --data-dir /srv/empty-state/data --log-level info >"$LOG" 2>&1 &
SERVER=$!
port=""
for _ in $(seq 1 150); do
    port=$(grep -o 'http.port=[0-9]*' "$LOG" | head -n 1 | cut -d= -f2)
    [ -n "$port" ] && break
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.2
done
if [ -z "$port" ]; then
    fail "the binary starts in the root" "$(tail -n 5 "$LOG")"
    echo "$PASSED passed, $FAILED failed"
    exit 1
fi
URL="http://127.0.0.1:$port"
pass "the binary starts in the root, on port $port"
expect_eq "it runs on the root's libmicrohttpd ($root_mhd)" "${root_mhd%%-*}" \
    "$(grep -o 'http.libmicrohttpd=[^ ]*' "$LOG" | head -n 1 | cut -d= -f2)"

status=$(curl -s -o "$WORK/template.json" -w '%{http_code}' "$URL/v1/templates/connectionRefused?locale=fr&platform=ios")
expect_eq "serves a built-in template" "200 connectionRefused" "$status $(jq -r .id "$WORK/template.json" 2>/dev/null)"

token=$($SUDO cat "$TARGET/srv/empty-state/data/admin-token" 2>/dev/null | tr -d '[:space:]')
jq '.id = "releaseCheck" | del(.aliases)' "$ROOT/config/templates/noDocuments.json" >"$WORK/template-doc.json"
status=$(curl -s -o "$WORK/put.json" -w '%{http_code}' -X PUT -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$WORK/template-doc.json" \
    "$URL/v1/admin/templates/releaseCheck")
expect_eq "takes an admin write (a template created with the generated token)" 201 "$status"
status=$(curl -s -o "$WORK/created.json" -w '%{http_code}' "$URL/v1/templates/releaseCheck?locale=en")
expect_eq "serves the template it was given" "200 releaseCheck" "$status $(jq -r .id "$WORK/created.json" 2>/dev/null)"

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
jq -n --arg a "$(cat /proc/sys/kernel/random/uuid)" --arg b "$(cat /proc/sys/kernel/random/uuid)" --arg t "$now" '
    def ev($id): {id: $id, type: "displayed", templateId: "connectionRefused", revision: 1, locale: "en",
                  platform: "ios", appVersion: "6.0.0", sessionId: "release-check", occurredAt: $t};
    {events: [ev($a), ev($b)]}' >"$WORK/events.json"
status=$(curl -s -o "$WORK/events-answer.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$WORK/events.json" "$URL/v1/events")
expect_eq "ingests events" "202 2" "$status $(jq -r .accepted "$WORK/events-answer.json" 2>/dev/null)"
# The event writer commits in the background and the rollups fold every second: the summary of
# the hour the events occurred in counts them once they are stored.
hour=$(date -u -d "$now" +%Y-%m-%dT%H:00:00Z)
next_hour=$(date -u -d "$hour + 1 hour" +%Y-%m-%dT%H:00:00Z)
counted=""
for _ in $(seq 1 75); do
    curl -s -o "$WORK/summary.json" -H "Authorization: Bearer $token" \
        "$URL/v1/admin/analytics/summary?from=$hour&to=$next_hour&templateId=connectionRefused"
    counted=$(jq -r '.totals.displays' "$WORK/summary.json" 2>/dev/null)
    [ "$counted" = 2 ] && break
    sleep 0.2
done
expect_eq "the events are stored and counted in the summary" 2 "$counted"

kill -TERM "$SERVER"
exit_status=""
for _ in $(seq 1 150); do
    if ! kill -0 "$SERVER" 2>/dev/null; then
        wait "$SERVER"
        exit_status=$?
        break
    fi
    sleep 0.2
done
SERVER=""
expect_eq "exits 0 on SIGTERM" 0 "${exit_status:-still running after 30 s}"
if grep -qE ' (error|critical) ' "$LOG"; then
    fail "logged no error" "$(grep -E ' (error|critical) ' "$LOG" | head -n 3)"
else
    pass "logged no error"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
