#!/usr/bin/env bash
# The upgrade from the previous release to this build, as docs/upgrades.md describes it:
#   bash Tests/upgrade/run.sh .build/debug/empty-state-server        (make upgrade-test)
#
# The previous release is the one Tests/upgrade/previous-release names (version and commit; the
# release procedure, docs/releases.md, moves it). Its binary is built once from that commit
# (git archive, a debug build in a scratch path of its own: about 6 minutes on 2 cores) and kept
# in $UPGRADE_CACHE (default .build-upgrade/, ignored by git), so later runs take about a minute.
# It needs the repository's history (a full clone, as CI has).
#
# SQLite: the previous release writes a data directory (an edit, an app policy, an event); this
# build starts on it, migrates, serves what was written and writes more; then the previous
# release is started on the migrated directory. PostgreSQL, a rolling upgrade: a replica of the
# previous release serves and writes; a replica of this build starts on the same database and
# migrates it while the old one runs; then reads, admin writes and events go through both, each
# sees the other's writes, and the old one, restarted, refuses the newer schema. What the old
# replica does after the migration is release-specific: EXPECT_* below holds the answers
# docs/upgrades.md gives for the previous release, and a release without them fails here.
# Prints "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

NEW=$(cd "$(dirname "${1:?usage: run.sh path/to/empty-state-server}")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
read -r VERSION COMMIT <"$HERE/previous-release"
CACHE=${UPGRADE_CACHE:-$ROOT/.build-upgrade}
SWIFT=${SWIFT:-swift}

# What the previous release does beside a migrated schema (docs/upgrades.md, "Which versions
# work together"): its event ingestion, and whether it starts on a migrated SQLite directory.
case "$VERSION" in
0.1.0)
    # 0.1.0 inserts events with ON CONFLICT (id) into the table version 4 partitions (no unique id
    # index there): 503, retried by clients. It predates the SQLite check: it starts.
    EXPECT_OLD_EVENTS_AFTER_MIGRATION=503
    EXPECT_OLD_ON_MIGRATED_SQLITE=starts
    ;;
0.2.0)
    # 0.2.0 knows the events layout (version 7); the schema after it changes template strings
    # only (a review column with a default), so its events are taken. It refuses a SQLite store
    # a newer release wrote.
    EXPECT_OLD_EVENTS_AFTER_MIGRATION=202
    EXPECT_OLD_ON_MIGRATED_SQLITE="exit 78"
    ;;
*)
    echo "Tests/upgrade/run.sh has no expectations for $VERSION: write what docs/upgrades.md says of it here"
    echo "0 passed, 1 failed"
    exit 1
    ;;
esac

# shellcheck source=Tests/integration/lib.sh
source "$ROOT/Tests/integration/lib.sh"
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
    [ -d "$WORK/pg" ] && bash "$ROOT/scripts/postgres.sh" stop "$WORK/pg" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

# --- the previous release's binary -----------------------------------------------------------
OLD="$CACHE/$VERSION/empty-state-server"
OLD_SOURCE="$CACHE/$VERSION/source"
if [ ! -x "$OLD" ]; then
    if ! git -C "$ROOT" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
        echo "the previous release's commit $COMMIT is not in this repository (a shallow clone?)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "== building $VERSION ($COMMIT) into $CACHE/$VERSION (once)"
    started=$(date +%s)
    rm -rf "$CACHE/$VERSION" && mkdir -p "$OLD_SOURCE"
    git -C "$ROOT" archive "$COMMIT" | tar -x -C "$OLD_SOURCE"
    if ! "$SWIFT" build --package-path "$OLD_SOURCE" --scratch-path "$CACHE/build-$VERSION" \
        --product empty-state-server >"$CACHE/build-$VERSION.log" 2>&1; then
        tail -n 30 "$CACHE/build-$VERSION.log"
        echo "0 passed, 1 failed"
        exit 1
    fi
    cp "$("$SWIFT" build --package-path "$OLD_SOURCE" --scratch-path "$CACHE/build-$VERSION" --show-bin-path)/empty-state-server" "$OLD"
    echo "built in $(($(date +%s) - started)) s"
fi
expect_eq "the previous release's binary says it is $VERSION" "$VERSION" "$("$OLD" --version)"

# start NAME BINARY DATA_DIR [flags…]: starts a server on a free port; sets PORT; its log is
# $WORK/NAME.log and its pid $WORK/NAME.pid. Returns 1 (with EXIT set) when it exits instead.
# Every release takes --config-dir and --openapi-path; 0.1.0 has no built-in catalogue.
start() {
    local name=$1 binary=$2 data=$3
    shift 3
    local extra=()
    [ "$binary" = "$OLD" ] && extra=(--config-dir "$OLD_SOURCE/config" --openapi-path "$OLD_SOURCE/openapi.yaml")
    : >"$WORK/$name.log" # before the server opens it: the loop below reads it at once
    "$binary" --host 127.0.0.1 --port 0 --data-dir "$data" "${extra[@]}" "$@" >/dev/null 2>"$WORK/$name.log" &
    local pid=$!
    PIDS+=("$pid")
    echo "$pid" >"$WORK/$name.pid"
    PORT=""
    for _ in $(seq 300); do
        PORT=$(grep -o 'http.port=[0-9]*' "$WORK/$name.log" | head -n 1 | cut -d= -f2)
        [ -n "$PORT" ] && return 0
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            EXIT=$?
            return 1
        fi
        sleep 0.1
    done
    EXIT=timeout
    return 1
}

stop() {
    local pid
    pid=$(cat "$WORK/$1.pid")
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

# edit PORT TITLE: sets noDocuments' English title through the admin API; prints the status.
edit() {
    local doc
    doc=$(curl -s -H "$AUTH" "http://127.0.0.1:$1/v1/admin/templates/noDocuments")
    jq --arg title "$2" '.template.strings.en | .title = $title' <<<"$doc" |
        curl -s -o /dev/null -w '%{http_code}' -X PUT -H "$AUTH" -H 'Content-Type: application/json' \
            -H "If-Match: \"r$(jq .revision <<<"$doc")\"" --data-binary @- \
            "http://127.0.0.1:$1/v1/admin/templates/noDocuments/strings/en"
}

# event PORT: posts one new displayed event; prints the status and the accepted count.
event() {
    local answer
    answer=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$1/v1/events" -d "{
        \"id\": \"$(cat /proc/sys/kernel/random/uuid)\", \"type\": \"displayed\", \"templateId\": \"loading\",
        \"revision\": 1, \"locale\": \"en\", \"platform\": \"ios\", \"appVersion\": \"1.0.0\",
        \"occurredAt\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}")
    echo "${answer##* } $(jq -r '.accepted // .type' <<<"${answer% *}" 2>/dev/null)"
}

title() { curl -s "http://127.0.0.1:$1/v1/templates/noDocuments?locale=en" | jq -r .title; }

# eventually PORT TITLE: waits (up to 5 s) until the replica at PORT serves TITLE; prints what it serves.
eventually() {
    local seen
    for _ in $(seq 50); do
        seen=$(title "$1")
        [ "$seen" = "$2" ] && break
        sleep 0.1
    done
    echo "$seen"
}

policy() {
    curl -s -o /dev/null -w '%{http_code}' -X PUT -H "$AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
        "http://127.0.0.1:$1/v1/admin/app-policies/ios" \
        -d '{"minimumVersion": "5.0", "latestVersion": "5.3.0", "storeUrl": "https://apps.apple.com/app/id123456789"}'
}

# --- SQLite: stop, upgrade, start ---------------------------------------------------------------
echo "== SQLite: $VERSION writes, this build ($("$NEW" --version)) upgrades the data directory"
DATA="$WORK/sqlite"
start old-sqlite "$OLD" "$DATA" || { cat "$WORK/old-sqlite.log"; echo "0 passed, 1 failed"; exit 1; }
AUTH="Authorization: Bearer $(cat "$DATA/admin-token")"
expect_eq "$VERSION: an edit" 200 "$(edit "$PORT" "Written by $VERSION")"
expect_eq "$VERSION: an app policy" 201 "$(policy "$PORT")"
expect_eq "$VERSION: an event" "202 1" "$(event "$PORT")"
stop old-sqlite

start new-sqlite "$NEW" "$DATA" || fail "this build starts on $VERSION's data directory" "exit $EXIT: $(tail -n 3 "$WORK/new-sqlite.log")"
expect_eq "this build serves $VERSION's edit" "Written by $VERSION" "$(title "$PORT")"
expect_eq "… with its history (import, edit)" 2 \
    "$(curl -s -H "$AUTH" "http://127.0.0.1:$PORT/v1/admin/templates/noDocuments/revisions" | jq '.items | length')"
expect_eq "… its app policy" updateRequired \
    "$(curl -s "http://127.0.0.1:$PORT/v1/app-status?platform=ios&appVersion=4.0" | jq -r .state)"
expect_eq "… and its event" 1 \
    "$(curl -s -H "$AUTH" "http://127.0.0.1:$PORT/v1/admin/analytics/events" | wc -l | tr -d ' ')"
expect_eq "this build writes on the migrated directory: an edit" 200 "$(edit "$PORT" "Written after the upgrade")"
expect_eq "… an event" "202 1" "$(event "$PORT")"
stop new-sqlite

if start old-again "$OLD" "$DATA"; then
    outcome=starts
    stop old-again
else
    outcome="exit $EXIT"
fi
expect_eq "$VERSION on the migrated SQLite directory (a downgrade)" "$EXPECT_OLD_ON_MIGRATED_SQLITE" "$outcome"
start new-again "$NEW" "$DATA" && stop new-again
expect_eq "this build on a directory it wrote starts again" 1 "$([ -n "$PORT" ] && echo 1)"

# --- PostgreSQL: a rolling upgrade ----------------------------------------------------------------
echo "== PostgreSQL: replicas of $VERSION and of this build side by side"
URL=$(bash "$ROOT/scripts/postgres.sh" start "$WORK/pg" 2>"$WORK/pg.err" | tail -n 1)
[ -n "$URL" ] || { cat "$WORK/pg.err"; echo "0 passed, 1 failed"; exit 1; }
start old-pg "$OLD" "$WORK/old-pg" --database-url "$URL" || { cat "$WORK/old-pg.log"; echo "0 passed, 1 failed"; exit 1; }
OLD_PORT=$PORT
AUTH="Authorization: Bearer $(cat "$WORK/old-pg/admin-token")"
expect_eq "$VERSION replica: an edit" 200 "$(edit "$OLD_PORT" "Written by $VERSION")"
expect_eq "$VERSION replica: an event" "202 1" "$(event "$OLD_PORT")"

start new-pg "$NEW" "$WORK/new-pg" --database-url "$URL" ||
    fail "a replica of this build starts beside $VERSION's" "exit $EXIT: $(tail -n 3 "$WORK/new-pg.log")"
NEW_PORT=$PORT
expect_match "it migrated the schema while $VERSION's replica ran" 'database schema migrated' "$(cat "$WORK/new-pg.log")"
expect_eq "it serves $VERSION's edit" "Written by $VERSION" "$(title "$NEW_PORT")"
expect_eq "$VERSION's replica still serves reads" "Written by $VERSION" "$(title "$OLD_PORT")"
expect_eq "$VERSION's replica: an admin write after the migration" 200 "$(edit "$OLD_PORT" "Old replica, migrated schema")"
expect_eq "… served by this build's replica" "Old replica, migrated schema" "$(eventually "$NEW_PORT" "Old replica, migrated schema")"
expect_eq "this build's replica: an admin write" 200 "$(edit "$NEW_PORT" "New replica")"
expect_eq "… served by $VERSION's replica" "New replica" "$(eventually "$OLD_PORT" "New replica")"
expect_eq "this build's replica: an event" "202 1" "$(event "$NEW_PORT")"
expect_eq "$VERSION's replica: an event after the migration" "$EXPECT_OLD_EVENTS_AFTER_MIGRATION" \
    "$(event "$OLD_PORT" | cut -d' ' -f1)"
stop old-pg
if start old-pg-again "$OLD" "$WORK/old-pg" --database-url "$URL"; then
    fail "$VERSION's replica, restarted on the migrated schema, refuses" "it started"
    stop old-pg-again
else
    expect_eq "$VERSION's replica, restarted on the migrated schema, refuses (exit 78)" 78 "$EXIT"
    expect_match "… naming both versions" 'schema is at version [0-9]+, newer than this binary knows' \
        "$(cat "$WORK/old-pg-again.log")"
fi
expect_eq "this build's replica serves on" "New replica" "$(title "$NEW_PORT")"
stop new-pg

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
