# Three replicas on one throwaway PostgreSQL (scripts/postgres.sh): they start together against an
# empty database; the first admin token is valid on all; a token created through the API on one is
# accepted by the others, and refused by all once revoked on another (timed); a publish on one is
# served by the others;
# a change request of three templates published on one is never served half by any; a preview
# token made on one works on the others at once, and its revocation holds on all at once; a scheduled
# one publishes exactly once, within a second, with a replica killed at its time; concurrent
# If-Match writes to different replicas let exactly one win; an event id sent to two
# replicas is stored once; PostgreSQL stopped and started again mid-run (reads never fail, /readyz
# stays 200 and says the store is unavailable, writes get 503 with Retry-After and then succeed,
# the listener catches up, no replica restarted);
# kill -9 of a replica mid-stream loses nothing it acknowledged; a schema newer than the binary
# stops a replica with exit 78.
#
# Sourced by run.sh (uses BIN, ROOT, WORK and lib.sh), or alone:
#   bash Tests/integration/replicas.sh .build/debug/empty-state-server
# The concurrent parts are in replicas.py, which prints JSON that this file asserts on.

if [ -z "${WORK:-}" ]; then # run alone
    set -uo pipefail
    BIN=${1:?usage: replicas.sh path/to/empty-state-server}
    HERE=$(cd "$(dirname "$0")" && pwd)
    ROOT=$(cd "$HERE/../.." && pwd)
    WORK=$(mktemp -d)
    # shellcheck source=Tests/integration/lib.sh
    source "$HERE/lib.sh"
    REP_ALONE=1
    # REPLICAS_KEEP_WORK=1 keeps the logs and files in $WORK for a look afterwards.
    trap 'rep_cleanup; [ -n "${REPLICAS_KEEP_WORK:-}" ] && echo "kept $WORK" || rm -rf "$WORK"' EXIT
fi
echo "== replicas on PostgreSQL"

REP_PY=(python3 "$ROOT/Tests/integration/replicas.py")
REP_PG="$WORK/rep-pg"
REP_PIDS=()
REP_URLS=()

# rep_cleanup: kills every replica and stops PostgreSQL (run.sh's EXIT trap calls it too).
rep_cleanup() {
    local pid
    for pid in "${REP_PIDS[@]}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; done
    [ -d "$REP_PG" ] && bash "$ROOT/scripts/postgres.sh" stop "$REP_PG"
    return 0
}

# rep_start N [flags…]: starts replica N (1-based) on port 0 with its own data directory and the
# database URL in $REP_DB; sets REP_PIDS[N]. rep_wait N then reads its port into REP_URLS[N].
rep_start() {
    local n=$1
    shift
    "$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        --data-dir "$WORK/rep$n" --database-url "$REP_DB" --log-level notice "$@" 2>>"$WORK/rep$n.log" &
    REP_PIDS[n]=$!
}

# rep_wait N: waits (60 s) for replica N's port and a 200 from its /readyz; returns 1 if not.
rep_wait() {
    local n=$1 port="" status=""
    for _ in $(seq 1 600); do
        port=$(grep -o 'http.port=[0-9]*' "$WORK/rep$n.log" 2>/dev/null | tail -n 1 | cut -d= -f2)
        if [ -n "$port" ]; then
            status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/readyz")
            [ "$status" = 200 ] && break
        fi
        kill -0 "${REP_PIDS[n]}" 2>/dev/null || break
        sleep 0.1
    done
    REP_URLS[n]="http://127.0.0.1:$port"
    [ "$status" = 200 ]
}

# rep_stop N: SIGTERM, wait up to 15 s; sets REP_STATUS.
rep_stop() {
    local n=$1 pid=${REP_PIDS[$1]}
    REP_STATUS="still running after 15 s"
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 150); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            REP_STATUS=$?
            break
        fi
        sleep 0.1
    done
    REP_PIDS[n]=""
}

# rep_json FILE FILTER
rep_json() { jq -r "$2" "$1" 2>/dev/null; }

# rep_poll_title URL TITLE SECONDS: until URL's French title of $REP_TPL is TITLE; prints the
# milliseconds it took, or returns 1.
rep_poll_title() {
    local started=$EPOCHREALTIME deadline=$((SECONDS + $3)) title
    while [ "$SECONDS" -le "$deadline" ]; do
        title=$(curl -s --max-time 2 "$1/v1/templates/$REP_TPL?locale=fr&platform=ios" | jq -r .title 2>/dev/null)
        if [ "$title" = "$2" ]; then
            echo $(((${EPOCHREALTIME/./} - ${started/./}) / 1000))
            return 0
        fi
        sleep 0.02
    done
    return 1
}

# rep_publish URL TITLE: PUT the French strings of $REP_TPL with this title on URL, with the
# current revision as If-Match; sets STATUS/HEADERS/BODY (lib.sh fetch). $1 must be up.
rep_publish() {
    fetch -H "$REP_AUTH" "$1/v1/admin/templates/$REP_TPL"
    local revision
    revision=$(json .revision)
    REP_STRINGS=$(jq -c --arg t "$2" '.template.strings.fr | .title = $t' "$BODY")
    fetch --max-time 30 -X PUT -H "$REP_AUTH" -H 'Content-Type: application/json' -H "If-Match: \"r$revision\"" \
        -d "$REP_STRINGS" "$1/v1/admin/templates/$REP_TPL/strings/fr"
}

if ! REP_DB=$(bash "$ROOT/scripts/postgres.sh" start "$REP_PG"); then
    fail "replicas: a throwaway PostgreSQL starts" "scripts/postgres.sh start failed"
else
    pass "replicas: a throwaway PostgreSQL starts"

    # --- Three replicas at the same moment against an empty database --------------------------------
    for n in 1 2 3; do rep_start "$n"; done
    rep_up=0
    for n in 1 2 3; do
        if rep_wait "$n"; then rep_up=$((rep_up + 1)); else
            echo "replica $n did not become ready; the end of its log:"
            tail -n 15 "$WORK/rep$n.log"
        fi
    done
    expect_eq "start: three replicas started together on an empty database are all ready" 3 "$rep_up"
fi

if [ "${rep_up:-0}" = 3 ]; then
    R1=${REP_URLS[1]} R2=${REP_URLS[2]} R3=${REP_URLS[3]}
    echo "replicas at $R1 $R2 $R3"
    rep_psql() { bash "$ROOT/scripts/postgres.sh" psql "$REP_PG" -Atq "$@" </dev/null; }
    rep_tables=$(rep_psql -c "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
    if [ "${rep_tables:-0}" -gt 0 ]; then pass "start: the schema is in PostgreSQL ($rep_tables tables)"; else
        fail "start: the schema is in PostgreSQL" "no table in the database's schema"; fi
    expect_eq "start: the schema was migrated by one replica (logs with 'database schema migrated')" 1 \
        "$(grep -l 'database schema migrated' "$WORK"/rep[123].log | wc -l)"
    expect_eq "start: schema_migration holds each version once" \
        "$(rep_psql -c "SELECT count(DISTINCT version) FROM schema_migration")" "$(rep_psql -c "SELECT count(*) FROM schema_migration")"
    for n in 1 2 3; do
        [ -e "$WORK/rep$n/store.sqlite" ] && fail "start: replica $n keeps no SQLite store" "$WORK/rep$n/store.sqlite exists"
    done

    # --- The first admin token: made by one replica, valid on all -----------------------------------
    rep_token_files=()
    for n in 1 2 3; do [ -s "$WORK/rep$n/admin-token" ] && rep_token_files+=("$WORK/rep$n/admin-token"); done
    expect_eq "tokens: exactly one replica wrote the generated admin token" 1 "${#rep_token_files[@]}"
    REP_TOKEN=$(tr -d '[:space:]' <"${rep_token_files[0]:-/dev/null}")
    REP_AUTH="Authorization: Bearer $REP_TOKEN"
    expect_eq "tokens: the token file is mode 600" 600 "$(stat -c %a "${rep_token_files[0]:-/dev/null}" 2>/dev/null)"
    for n in 1 2 3; do
        fetch -H "$REP_AUTH" "${REP_URLS[n]}/v1/admin/templates?pageSize=1"
        expect_eq "tokens: the generated token is accepted by replica $n" 200 "$STATUS"
    done

    # --- Admin tokens through the API: created on one replica, revoked on another -------------------
    # In force on every replica when the change feed's NOTIFY reaches it (StoreAdminTokens); each
    # replica's first request that accepts (or refuses) is timed from the 201 (or the 204).
    # rep_token_wait URL SECRET STATUS: ms until an admin read with SECRET answers STATUS (5 s).
    rep_token_wait() {
        local started=$EPOCHREALTIME deadline=$((SECONDS + 5)) seen
        while [ "$SECONDS" -le "$deadline" ]; do
            seen=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -H "Authorization: Bearer $2" \
                "$1/v1/admin/templates?pageSize=1")
            if [ "$seen" = "$3" ]; then
                echo $(((${EPOCHREALTIME/./} - ${started/./}) / 1000))
                return 0
            fi
            sleep 0.01
        done
        return 1
    }
    # rep_token_agrees SECRET STATUS WHAT SINCE N...: replicas N... each answer STATUS to SECRET within
    # 5 s; one check per replica, passed with the milliseconds since SINCE (the 201 or the 204).
    rep_token_agrees() {
        local secret=$1 status=$2 what=$3 since=$4 n rep_ms
        shift 4
        for n in "$@"; do
            if rep_ms=$(rep_token_wait "${REP_URLS[n]}" "$secret" "$status"); then
                pass "tokens api: … is $what by replica $n (${rep_ms} ms after the $since)"
            else
                fail "tokens api: … is $what by replica $n" "still not $status after 5 s"
            fi
        done
    }
    fetch -H "$REP_AUTH" "$R1/v1/admin/tokens"
    rep_generated=$(json '.items[] | select(.source == "generated") | .id')
    expect_eq "tokens api: the generated first token is listed as generated, revocable" "admin true" \
        "$(json '.items[] | select(.source == "generated") | "\(.role) \(.revocable)"')"
    fetch -X DELETE -H "$REP_AUTH" "$R1/v1/admin/tokens/$rep_generated"
    expect_eq "tokens api: the last admin token in force cannot be revoked → 409 last-admin-token" \
        "409 last-admin-token" "$STATUS $(json '.type | split(":") | last')"
    fetch -X POST -H "$REP_AUTH" -H 'Content-Type: application/json' -d '{"name":"rep-ci","role":"editor"}' \
        "$R1/v1/admin/tokens"
    expect_eq "tokens api: a token created on replica 1" 201 "$STATUS"
    rep_ci=$(json .secret)
    rep_ci_id=$(json .id)
    rep_token_agrees "$rep_ci" 200 accepted 201 2 3
    fetch -X DELETE -H "$REP_AUTH" "$R2/v1/admin/tokens/$rep_ci_id"
    expect_eq "tokens api: revoked on replica 2" 204 "$STATUS"
    rep_token_agrees "$rep_ci" 401 refused 204 1 3
    expect_eq "tokens api: … and at once by replica 2" 401 "$(curl -s -o /dev/null -w '%{http_code}' \
        -H "Authorization: Bearer $rep_ci" "$R2/v1/admin/templates?pageSize=1")"
    expect_eq "tokens api: the database keeps only the hash of the secret" "0 1" \
        "$(rep_psql -c "SELECT count(*) FILTER (WHERE secret_sha256 = '$rep_ci'), count(*) FILTER (WHERE id = '$rep_ci_id' AND revoked_at IS NOT NULL) FROM admin_token" | tr '|' ' ')"

    # --- A publish on one replica is served by the other two ----------------------------------------
    REP_TPL=noDocuments
    rep_publish "$R1" "Rien ici, réplique 1"
    expect_eq "publish: PUT strings on replica 1" 200 "$STATUS"
    for n in 2 3; do
        if rep_ms=$(rep_poll_title "${REP_URLS[n]}" "Rien ici, réplique 1" 5); then
            pass "publish: replica $n serves the new copy (${rep_ms} ms after the 200, curl polling)"
        else
            fail "publish: replica $n serves the new copy" "not within 5 s"
        fi
    done
    rep_etags=$(for u in "$R1" "$R2" "$R3"; do
        curl -s -o /dev/null -D - "$u/v1/templates/$REP_TPL?locale=fr&platform=ios" | awk 'tolower($1)=="etag:"{print $2}' | tr -d '\r'
    done | sort -u | wc -l)
    expect_eq "publish: the same ETag on the three replicas" 1 "$rep_etags"
    rep_bundle_etags=$(for u in "$R1" "$R2" "$R3"; do
        curl -s -o /dev/null -D - "$u/v1/templates?locale=fr&platform=ios" | awk 'tolower($1)=="etag:"{print $2}' | tr -d '\r'
    done | sort -u | wc -l)
    expect_eq "publish: the same bundle ETag on the three replicas" 1 "$rep_bundle_etags"
    if "${REP_PY[@]}" publish --writer "$R2" --readers "$R1,$R3" --token "$REP_TOKEN" --template "$REP_TPL" \
        --samples 20 >"$WORK/rep-publish.json" 2>"$WORK/rep-publish.err"; then
        expect_eq "publish: 20 publications on replica 2, each served by replicas 1 and 3" 0 \
            "$(rep_json "$WORK/rep-publish.json" '.missed + .etags_differ')"
        echo "      acknowledged → served by both: p50 $(rep_json "$WORK/rep-publish.json" .p50) ms, max $(rep_json "$WORK/rep-publish.json" .max) ms"
    else
        fail "publish: 20 publications on replica 2, each served by replicas 1 and 3" "$(tail -n 3 "$WORK/rep-publish.err")"
    fi

    # --- A change request of three templates: served whole on every replica, never half ------------
    if "${REP_PY[@]}" atomic --writer "$R3" --readers "$R1,$R2,$R3" --token "$REP_TOKEN" --rounds 5 \
        >"$WORK/rep-atomic.json" 2>"$WORK/rep-atomic.err"; then
        expect_eq "change request: 5 publications of 3 templates on replica 3, no bundle read on any replica holds part of one" \
            "0 0" "$(rep_json "$WORK/rep-atomic.json" '"\(.torn | length) \(.missed)"')"
        echo "      $(rep_json "$WORK/rep-atomic.json" .reads) bundle reads; served whole by all: p50 $(rep_json "$WORK/rep-atomic.json" .p50) ms"
    else
        fail "change request: publications served whole on every replica" "$(tail -n 3 "$WORK/rep-atomic.err")"
    fi

    # --- A preview token made on one replica works on the others at once; revoked, on none ----------
    fetch -H "$REP_AUTH" "$R1/v1/admin/templates/noTransactions"
    fetch -X POST -H "$REP_AUTH" -H 'Content-Type: application/json' "$R1/v1/admin/change-requests" \
        --data-binary "$(jq -c '{title: "previewed on replicas", changes: [{kind: "templateStrings", id: "noTransactions",
            locale: "en", strings: (.template.strings.en | .title = "Previewed on replicas")}]}' "$BODY")"
    rep_pid=$(json .id)
    fetch -X POST -H "$REP_AUTH" -H 'Content-Type: application/json' --data-binary '{"label":"replicas"}' \
        "$R1/v1/admin/change-requests/$rep_pid/preview-tokens"
    rep_ptoken=$(json .token)
    rep_ptoken_id=$(json .id)
    fetch -H "X-Preview-Token: $rep_ptoken" "$R2/v1/templates/noTransactions?locale=en"
    rep_p2="$STATUS $(json .title)"
    fetch -H "X-Preview-Token: $rep_ptoken" "$R3/v1/templates/noTransactions?locale=en"
    expect_eq "preview: a token made on replica 1 works on 2 and 3 at once" \
        "200 Previewed on replicas|200 Previewed on replicas" "$rep_p2|$STATUS $(json .title)"
    fetch -X DELETE -H "$REP_AUTH" "$R3/v1/admin/change-requests/$rep_pid/preview-tokens/$rep_ptoken_id"
    expect_eq "preview: revoked on replica 3" 204 "$STATUS"
    fetch -H "X-Preview-Token: $rep_ptoken" "$R1/v1/templates/noTransactions?locale=en"
    rep_p1=$STATUS
    fetch -H "X-Preview-Token: $rep_ptoken" "$R2/v1/templates/noTransactions?locale=en"
    expect_eq "preview: the revocation holds on replicas 1 and 2 at once" "401 401" "$rep_p1 $STATUS"
    fetch -H "$REP_AUTH" "$R1/v1/admin/change-requests/$rep_pid"
    fetch -X POST -H "$REP_AUTH" -H "If-Match: $(header ETag)" "$R1/v1/admin/change-requests/$rep_pid/withdraw"

    # --- A scheduled change request: published once, though a replica is killed at its time -------
    fetch -H "$REP_AUTH" "$R1/v1/admin/templates/noTransactions"
    rep_before=$(json .revision)
    fetch -X POST -H "$REP_AUTH" -H 'Content-Type: application/json' "$R1/v1/admin/change-requests" \
        --data-binary "$(jq -c '{title: "scheduled on replicas", changes: [{kind: "templateStrings", id: "noTransactions",
            locale: "fr", strings: (.template.strings.fr | .title = "Programmé sur les répliques")}]}' "$BODY")"
    rep_sid=$(json .id)
    rep_due=$(($(date +%s) + 3))
    fetch -X PUT -H "$REP_AUTH" -H 'Content-Type: application/json' -H "If-Match: $(header ETag)" \
        --data-binary "{\"at\":\"$(date -u -d "@$rep_due" +%Y-%m-%dT%H:%M:%SZ)\"}" "$R1/v1/admin/change-requests/$rep_sid/schedule"
    expect_eq "schedule: set on replica 1 for 3 s ahead" 200 "$STATUS"
    while [ "$(date +%s%N)" -lt "$((rep_due * 1000000000 - 20000000))" ]; do sleep 0.01; done
    kill -9 "${REP_PIDS[2]}" 2>/dev/null
    wait "${REP_PIDS[2]}" 2>/dev/null
    REP_PIDS[2]=""
    rep_deadline=$((SECONDS + 8))
    while [ "$SECONDS" -le "$rep_deadline" ]; do
        fetch -H "$REP_AUTH" "$R3/v1/admin/change-requests/$rep_sid"
        [ "$(json .state)" = published ] && break
        sleep 0.1
    done
    expect_eq "schedule: published with replica 2 killed at its time, within a second" "published true" \
        "$(json '"\(.state) \(.publication.lateMilliseconds < 1000)"')"
    fetch -H "$REP_AUTH" "$R3/v1/admin/audit?templateId=change-request:$rep_sid&action=publish"
    expect_eq "schedule: published exactly once (one publish action)" 1 "$(json .total)"
    fetch -H "$REP_AUTH" "$R3/v1/admin/templates/noTransactions"
    expect_eq "schedule: the template written once" "$((rep_before + 1))" "$(json .revision)"
    if rep_ms=$(REP_TPL=noTransactions rep_poll_title "$R1" "Programmé sur les répliques" 5); then
        pass "schedule: replica 1 serves it (${rep_ms} ms)"
    else
        fail "schedule: replica 1 serves it" "not within 5 s"
    fi
    rep_start 2
    if rep_wait 2; then pass "schedule: replica 2 restarts"; else fail "schedule: replica 2 restarts"; fi
    R2=${REP_URLS[2]}

    # --- A copy experiment started on one replica is served by the others; stopped, it is not ---------
    # rep_experiment URL STATUS PRECONDITION: PUT the experiment repl-copy (on loginRequired).
    rep_experiment() {
        fetch --max-time 30 -X PUT -H "$REP_AUTH" -H 'Content-Type: application/json' -H "$3" \
            --data-binary "{\"id\":\"repl-copy\",\"templateId\":\"loginRequired\",\"status\":\"$2\",\"coverage\":1,\"primaryMetric\":{\"type\":\"anyTap\"},\"variants\":[{\"key\":\"control\",\"weight\":0.5},{\"key\":\"b\",\"weight\":0.5,\"strings\":{\"en\":{\"title\":\"Sign in to see this\"}}}]}" \
            "$1/v1/admin/experiments/repl-copy"
    }
    # rep_poll_variant URL EXPECTED SECONDS: until URL serves loginRequired to install-7 with
    # experiment.variant EXPECTED ("null": no experiment member); returns 1 if not.
    rep_poll_variant() {
        local deadline=$((SECONDS + $3))
        while [ "$SECONDS" -le "$deadline" ]; do
            [ "$(curl -s --max-time 2 -H 'X-Install-ID: install-7' "$1/v1/templates/loginRequired?locale=en" |
                jq -r .experiment.variant 2>/dev/null)" = "$2" ] && return 0
            sleep 0.05
        done
        return 1
    }
    rep_experiment "$R1" draft 'If-None-Match: *'
    rep_experiment "$R1" running 'If-Match: "r1"'
    expect_eq "experiment: started on replica 1" 200 "$STATUS"
    rep_variant=$(curl -s -H 'X-Install-ID: install-7' "$R1/v1/templates/loginRequired?locale=en" | jq -r .experiment.variant)
    expect_match "experiment: replica 1 serves install-7 a variant" '^(control|b)$' "$rep_variant"
    for n in 2 3; do
        if rep_poll_variant "${REP_URLS[n]}" "$rep_variant" 5; then
            pass "experiment: replica $n serves install-7 the same variant ($rep_variant)"
        else
            fail "experiment: replica $n serves install-7 the same variant" "not within 5 s"
        fi
    done
    rep_experiment "$R3" stopped 'If-Match: "r2"'
    expect_eq "experiment: stopped on replica 3" 200 "$STATUS"
    for n in 1 2; do
        if rep_poll_variant "${REP_URLS[n]}" null 5; then
            pass "experiment: replica $n stops serving it"
        else
            fail "experiment: replica $n stops serving it" "not within 5 s"
        fi
    done

    # --- Concurrent If-Match writes to different replicas: exactly one wins -------------------------
    if "${REP_PY[@]}" race --urls "$R1,$R2,$R3" --token "$REP_TOKEN" --template noFavorites --rounds 5 --per-replica 2 \
        >"$WORK/rep-race.json" 2>"$WORK/rep-race.err"; then
        expect_eq "race: 5 rounds of 6 writers (2 per replica), same If-Match: one 200 and five 412 each" \
            '[{"200":1,"412":5},{"200":1,"412":5},{"200":1,"412":5},{"200":1,"412":5},{"200":1,"412":5}]' \
            "$(jq -cS .rounds "$WORK/rep-race.json")"
    else
        fail "race: concurrent If-Match writes" "$(tail -n 3 "$WORK/rep-race.err")"
    fi

    # --- The same event id sent to two replicas is stored once --------------------------------------
    if "${REP_PY[@]}" dedupe --urls "$R1,$R2,$R3" --token "$REP_TOKEN" --template connectionRefused --events 50 \
        >"$WORK/rep-dedupe.json" 2>"$WORK/rep-dedupe.err"; then
        expect_eq "dedupe: 50 events posted to replicas 1 and 2 at once: both 202" "202 202" \
            "$(rep_json "$WORK/rep-dedupe.json" '[.first[].status] | map(tostring) | join(" ")')"
        expect_eq "dedupe: accepted once and duplicates once in all (accepted, duplicates)" "50 50" \
            "$(rep_json "$WORK/rep-dedupe.json" '"\([.first[].accepted] | add) \([.first[].duplicates] | add)"')"
        expect_eq "dedupe: the same batch again on replica 3: all duplicates" "202 0 50" \
            "$(rep_json "$WORK/rep-dedupe.json" '"\(.again.status) \(.again.accepted) \(.again.duplicates)"')"
        expect_eq "dedupe: the export (through replica 3) holds each id once" "50 1" \
            "$(rep_json "$WORK/rep-dedupe.json" '[.stored[]] | "\(length) \(unique | map(tostring) | join(","))"')"
    else
        fail "dedupe: the same event ids to two replicas" "$(tail -n 3 "$WORK/rep-dedupe.err")"
    fi

    # --- PostgreSQL stopped and started again mid-run -----------------------------------------------
    REP_TPL=noSearchResults
    rm -f "$WORK/rep-readers.stop"
    "${REP_PY[@]}" readers --urls "$R1,$R2,$R3" --template "$REP_TPL" --stop-file "$WORK/rep-readers.stop" \
        >"$WORK/rep-readers.json" 2>"$WORK/rep-readers.err" &
    rep_readers_pid=$!
    sleep 0.5
    fetch -H "$REP_AUTH" "$R1/v1/admin/templates/$REP_TPL"
    rep_revision=$(json .revision)
    rep_strings=$(jq -c '.template.strings.fr | .title = "Pendant la panne"' "$BODY")
    rep_outage_started=$SECONDS
    if bash "$ROOT/scripts/postgres.sh" down "$REP_PG"; then pass "outage: pg_ctl stop -m fast"; else fail "outage: pg_ctl stop -m fast"; fi
    # Ready means "serves client reads", which a database outage does not change (the replicas
    # share the database, so a balancer that dropped unready replicas would drop them all);
    # /readyz's "store" says whether writes can be served (openapi.yaml, getReadiness).
    for n in 1 2 3; do
        rep_ready=""
        for _ in $(seq 1 100); do
            fetch --max-time 2 "${REP_URLS[n]}/readyz"
            rep_ready="$STATUS $(json .store)"
            [ "$rep_ready" = "200 unavailable" ] && break
            sleep 0.1
        done
        expect_eq "outage: replica $n /readyz stays 200 and says store unavailable" "200 unavailable" "$rep_ready"
    done
    fetch "$R2/healthz"
    expect_eq "outage: /healthz still 200" 200 "$STATUS"
    rep_t0=$EPOCHREALTIME
    fetch --max-time 30 -X PUT -H "$REP_AUTH" -H 'Content-Type: application/json' -H "If-Match: \"r$rep_revision\"" \
        -d "$rep_strings" "$R1/v1/admin/templates/$REP_TPL/strings/fr"
    rep_ms=$(((${EPOCHREALTIME/./} - ${rep_t0/./}) / 1000))
    expect_eq "outage: an admin write gets 503 (answered in ${rep_ms} ms)" 503 "$STATUS"
    expect_eq "outage: the write's 503 is problem+json" "application/problem+json" "$(header Content-Type | cut -d';' -f1)"
    expect_match "outage: the write's 503 has Retry-After" '^[0-9]+$' "$(header Retry-After)"
    rep_event='{"id":"'"$(cat /proc/sys/kernel/random/uuid)"'","type":"displayed","templateId":"connectionRefused","revision":1,"locale":"fr","platform":"ios","appVersion":"5.2.0","occurredAt":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'"}'
    fetch --max-time 30 -X POST -H 'Content-Type: application/json' -d "$rep_event" "$R2/v1/events"
    expect_eq "outage: POST /v1/events gets 503" 503 "$STATUS"
    expect_match "outage: the events' 503 has Retry-After" '^[0-9]+$' "$(header Retry-After)"
    fetch -H "$REP_AUTH" "$R3/v1/admin/templates/$REP_TPL"
    echo "      (admin read during the outage: $STATUS)"
    while [ $((SECONDS - rep_outage_started)) -lt 4 ]; do sleep 0.2; done
    if bash "$ROOT/scripts/postgres.sh" up "$REP_PG"; then pass "outage: PostgreSQL started again after $((SECONDS - rep_outage_started)) s"; else
        fail "outage: PostgreSQL started again"; fi
    # The write right after the restart, on replica 1, retried while it gets 503 (Retry-After).
    rep_t0=$EPOCHREALTIME
    rep_deadline=$((SECONDS + 30))
    rep_statuses=""
    while [ "$SECONDS" -lt "$rep_deadline" ]; do
        fetch --max-time 30 -X PUT -H "$REP_AUTH" -H 'Content-Type: application/json' -H "If-Match: \"r$rep_revision\"" \
            -d "$rep_strings" "$R1/v1/admin/templates/$REP_TPL/strings/fr"
        rep_statuses+="$STATUS "
        [ "$STATUS" = 503 ] || break
        sleep 0.2
    done
    rep_ms=$(((${EPOCHREALTIME/./} - ${rep_t0/./}) / 1000))
    expect_eq "outage: the write succeeds after the restart, no replica restarted (${rep_ms} ms; statuses: $rep_statuses)" 200 "$STATUS"
    for n in 2 3; do
        if rep_ms=$(rep_poll_title "${REP_URLS[n]}" "Pendant la panne" 15); then
            pass "outage: replica $n serves the write made right after the restart (${rep_ms} ms)"
        else
            fail "outage: replica $n serves the write made right after the restart" "not within 15 s"
        fi
    done
    fetch --max-time 30 -X POST -H 'Content-Type: application/json' -d "$rep_event" "$R2/v1/events"
    expect_eq "outage: the event refused during the outage is accepted after it (status, accepted, duplicates)" "202 1 0" \
        "$STATUS $(json .accepted) $(json .duplicates)"
    for n in 1 2 3; do
        rep_ready=""
        for _ in $(seq 1 100); do
            fetch --max-time 2 "${REP_URLS[n]}/readyz"
            rep_ready="$STATUS $(json .store)"
            [ "$rep_ready" = "200 ok" ] && break
            sleep 0.1
        done
        expect_eq "outage: replica $n /readyz says store ok again" "200 ok" "$rep_ready"
    done
    touch "$WORK/rep-readers.stop"
    wait "$rep_readers_pid"
    expect_eq "outage: client reads on the three replicas never failed ($(rep_json "$WORK/rep-readers.json" .ok) answered)" \
        "0" "$(rep_json "$WORK/rep-readers.json" '.failed')"
    [ "$(rep_json "$WORK/rep-readers.json" '.failed')" = 0 ] || rep_json "$WORK/rep-readers.json" '.samples[]'
    for n in 1 2 3; do
        kill -0 "${REP_PIDS[n]}" 2>/dev/null || fail "outage: replica $n still running" "it exited"
    done

    # --- kill -9 of a replica mid-stream loses nothing it acknowledged ------------------------------
    : >"$WORK/rep-acked-writes"
    : >"$WORK/rep-acked-events"
    "${REP_PY[@]}" stream --url "$R1" --token "$REP_TOKEN" --template noTransactions --seconds 30 \
        --acked-writes "$WORK/rep-acked-writes" --acked-events "$WORK/rep-acked-events" \
        >"$WORK/rep-stream.json" 2>"$WORK/rep-stream.err" &
    rep_stream_pid=$!
    sleep 2
    for _ in $(seq 1 50); do # at least 10 writes and 10 batches acknowledged
        [ "$(wc -l <"$WORK/rep-acked-writes")" -ge 10 ] && [ "$(wc -l <"$WORK/rep-acked-events")" -ge 200 ] && break
        sleep 0.2
    done
    kill -9 "${REP_PIDS[1]}"
    wait "${REP_PIDS[1]}" 2>/dev/null
    REP_PIDS[1]=""
    wait "$rep_stream_pid"
    echo "      stream: $(cat "$WORK/rep-stream.json" 2>/dev/null) $(tail -n 2 "$WORK/rep-stream.err")"
    if "${REP_PY[@]}" verify --url "$R2" --token "$REP_TOKEN" --template noTransactions \
        --acked-writes "$WORK/rep-acked-writes" --acked-events "$WORK/rep-acked-events" \
        >"$WORK/rep-verify.json" 2>"$WORK/rep-verify.err"; then
        rep_writes=$(rep_json "$WORK/rep-verify.json" .writes)
        rep_events=$(rep_json "$WORK/rep-verify.json" .events)
        if [ "${rep_writes:-0}" -gt 0 ] && [ "${rep_events:-0}" -gt 0 ]; then
            pass "kill -9: the stream was acknowledged before the kill ($rep_writes writes, $rep_events events)"
        else
            fail "kill -9: the stream was acknowledged before the kill" "$rep_writes writes, $rep_events events"
        fi
        expect_eq "kill -9: every acknowledged write is a revision with its copy (read on replica 2)" "[]" \
            "$(jq -c .writes_missing "$WORK/rep-verify.json")"
        expect_eq "kill -9: every acknowledged event is stored once (export on replica 2)" 0 \
            "$(rep_json "$WORK/rep-verify.json" .events_missing)"
    else
        fail "kill -9: verify through replica 2" "$(tail -n 3 "$WORK/rep-verify.err")"
    fi
    rep_start 1
    if rep_wait 1; then
        R1=${REP_URLS[1]}
        pass "kill -9: replica 1 starts again"
        REP_TPL=noTransactions
        fetch "$R2/v1/templates/$REP_TPL?locale=fr&platform=ios"
        rep_expected="$(json .title) $(header ETag)"
        fetch "$R1/v1/templates/$REP_TPL?locale=fr&platform=ios"
        expect_eq "kill -9: the restarted replica serves what replica 2 serves (title, ETag)" "$rep_expected" "$(json .title) $(header ETag)"
    else
        fail "kill -9: replica 1 starts again" "$(tail -n 5 "$WORK/rep1.log")"
    fi

    # --- A schema newer than the binary: exit 78 ---------------------------------------------------
    rep_psql -c "INSERT INTO schema_migration (version, description) VALUES (999999, 'from the future')" >/dev/null
    rep_start 4
    rep_status="still running after 30 s"
    for _ in $(seq 1 300); do
        if ! kill -0 "${REP_PIDS[4]}" 2>/dev/null; then
            wait "${REP_PIDS[4]}"
            rep_status=$?
            break
        fi
        sleep 0.1
    done
    [ "$rep_status" = "still running after 30 s" ] && kill -9 "${REP_PIDS[4]}" 2>/dev/null
    REP_PIDS[4]=""
    expect_eq "schema: a replica refuses a schema newer than it knows (exit 78)" 78 "$rep_status"
    expect_match "schema: and says why" "newer than this binary knows" "$(cat "$WORK/rep4.log")"
    rep_psql -c "DELETE FROM schema_migration WHERE version = 999999" >/dev/null

    # --- Shutdown ----------------------------------------------------------------------------------
    for n in 1 2 3; do
        [ -n "${REP_PIDS[n]}" ] || continue
        rep_stop "$n"
        expect_eq "shutdown: replica $n drains and exits 0" 0 "$REP_STATUS"
    done
fi
rep_cleanup
REP_PIDS=()

if [ -n "${REP_ALONE:-}" ]; then
    echo
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
fi
