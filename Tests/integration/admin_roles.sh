# Admin roles with configured tokens, and durability of acknowledged writes across kill -9.
# Sourced by run.sh after startup.sh: starts its own server (start_server from run.sh) with an
# editor and a viewer token on its own data directory, and stops it at the end.
echo "== admin roles and durability"

ROLES_DATA="$WORK/roles-data"
ROLES_EDITOR_SECRET=editor-secret-0123456789
ROLES_VIEWER_SECRET=viewer-secret-0123456789
ROLES_FLAGS=(--admin-token "ed:editor:$ROLES_EDITOR_SECRET" --admin-token "rd:viewer:$ROLES_VIEWER_SECRET")
ROLES_EDITOR="Authorization: Bearer $ROLES_EDITOR_SECRET"
ROLES_VIEWER="Authorization: Bearer $ROLES_VIEWER_SECRET"
ROLES_LOG="$WORK/roles.log"

DATA_DIR="$ROLES_DATA" start_server "$ROLES_LOG" "${ROLES_FLAGS[@]}"
echo "roles server at $BASE_URL (pid $SERVER_PID)"
ROLES_API="$BASE_URL/v1/admin"

# --- Configured tokens ---------------------------------------------------------------------------

if [ -s "$ROLES_DATA/store.sqlite" ]; then pass "tokens: the server uses its own data directory"; else fail "tokens: the server uses its own data directory" "no $ROLES_DATA/store.sqlite"; fi
if [ ! -e "$ROLES_DATA/admin-token" ]; then pass "tokens: no admin-token file generated"; else fail "tokens: no admin-token file generated"; fi
expect_match "tokens: the log names the tokens and roles" 'ed:editor.*rd:viewer' "$(cat "$ROLES_LOG")"
if grep -qF -e "$ROLES_EDITOR_SECRET" -e "$ROLES_VIEWER_SECRET" "$ROLES_LOG"; then
    fail "tokens: no secret in the log"
else
    pass "tokens: no secret in the log"
fi
fetch -H "Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")" "$ROLES_API/templates"
expect_eq "tokens: the generated token of the other data directory is not accepted" 401 "$STATUS"

# --- Viewer: reads only ------------------------------------------------------------------------

for path in /templates /templates/noDocuments /templates/noDocuments/revisions /templates/noDocuments/revisions/1 /locales /audit; do
    fetch -H "$ROLES_VIEWER" "$ROLES_API$path"
    expect_eq "viewer: GET $path 200" 200 "$STATUS"
done
fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/noDocuments"
roles_doc="$WORK/roles-noDocuments.json"
jq .template "$BODY" >"$roles_doc"
roles_fr() { # TITLE: noDocuments' French strings with this title
    jq -c --arg t "$1" '.strings.fr | .title = $t' "$roles_doc"
}
fetch -X PUT -H "$ROLES_VIEWER" -H 'Content-Type: application/json' -H 'If-Match: "r1"' -d "$(roles_fr "Vue seulement")" \
    "$ROLES_API/templates/noDocuments/strings/fr"
expect_eq "viewer: PUT strings 403" 403 "$STATUS"
expect_eq "viewer: forbidden problem" "urn:empty-state:problem:forbidden" "$(json .type)"
expect_eq "viewer: 403 has no WWW-Authenticate" "" "$(header WWW-Authenticate)"
fetch -X PUT -H "$ROLES_VIEWER" -H 'Content-Type: application/json' -H 'If-Match: "r1"' --data-binary @"$roles_doc" \
    "$ROLES_API/templates/noDocuments"
expect_eq "viewer: PUT template 403" 403 "$STATUS"
fetch -X DELETE -H "$ROLES_VIEWER" -H 'If-Match: "r1"' "$ROLES_API/templates/noDocuments"
expect_eq "viewer: DELETE 403" 403 "$STATUS"
fetch -X POST -H "$ROLES_VIEWER" -H 'Content-Type: application/json' -d '{"revision": 1}' "$ROLES_API/templates/noDocuments/rollback"
expect_eq "viewer: rollback 403" 403 "$STATUS"
fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/noDocuments/revisions"
expect_eq "viewer: nothing was written" 1 "$(json .total)"

# --- Editor: writes, recorded under its name --------------------------------------------------------

fetch -X PUT -H "$ROLES_EDITOR" -H 'Content-Type: application/json' -H 'If-Match: "r1"' -d "$(roles_fr "Pas encore de documents")" \
    "$ROLES_API/templates/noDocuments/strings/fr"
expect_eq "editor: PUT strings 200" 200 "$STATUS"
expect_eq "editor: r2 by ed" '"r2" ed' "$(header ETag) $(json .updatedBy)"
fetch "$BASE_URL/v1/templates/noDocuments?locale=fr"
expect_eq "editor: clients get the change" "Pas encore de documents" "$(json .title)"
fetch -H "$ROLES_VIEWER" "$ROLES_API/audit?templateId=noDocuments"
expect_eq "editor: the audit names ed" "2:ed 1:built-in" "$(json '[.items[] | "\(.revision):\(.createdBy)"] | join(" ")')"

ROLES_ID=durableDoc
jq --arg id "$ROLES_ID" '.id = $id | del(.aliases)' "$roles_doc" >"$WORK/$ROLES_ID.json"
fetch -X PUT -H "$ROLES_EDITOR" -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$WORK/$ROLES_ID.json" \
    "$ROLES_API/templates/$ROLES_ID"
expect_eq "editor: create 201" '201 "r1"' "$STATUS $(header ETag)"

# --- Durability: acknowledged writes survive kill -9 ---------------------------------------------------

# The writer sends one French title after another with If-Match of the revision it was last
# acknowledged, and records each acknowledged (200) revision and title, until the server is gone.
ROLES_ACKED="$WORK/acked.tsv"
ROLES_WRITER_END="$WORK/writer.end"
: >"$ROLES_ACKED"
: >"$ROLES_WRITER_END"
# The body around the title, built once: no jq in the loop, so it writes as fast as the server acks.
roles_rest=$(jq -c '.strings.fr | del(.title)' "$roles_doc")
(
    rev=1
    n=0
    deadline=$((SECONDS + 30))
    while [ "$SECONDS" -lt "$deadline" ]; do
        n=$((n + 1))
        title="Écriture durable n° $n"
        code=$(curl -s -o "$WORK/writer.body" -w '%{http_code}' --max-time 10 -X PUT -H "$ROLES_EDITOR" \
            -H 'Content-Type: application/json' -H "If-Match: \"r$rev\"" -d "{\"title\":\"$title\",${roles_rest#\{}" \
            "$ROLES_API/templates/$ROLES_ID/strings/fr")
        case "$code" in
            200)
                acked=$(grep -o '^{"id":"[A-Za-z]*","revision":[0-9]*' "$WORK/writer.body" | grep -o '[0-9]*$')
                if [ "$acked" != $((rev + 1)) ] || ! grep -qF "\"title\":\"$title\"" "$WORK/writer.body"; then
                    echo "write $n: acknowledged revision '$acked' after r$rev, or not its title" >"$ROLES_WRITER_END"
                    exit 1
                fi
                rev=$acked
                printf '%s\t%s\n' "$rev" "$title" >>"$ROLES_ACKED"
                ;;
            000)
                echo "connection failed" >"$ROLES_WRITER_END"
                exit 0
                ;;
            *)
                echo "write $n: unexpected status $code: $(head -c 300 "$WORK/writer.body")" >"$ROLES_WRITER_END"
                exit 1
                ;;
        esac
    done
    echo "still acknowledged after 30 s" >"$ROLES_WRITER_END"
) &
roles_writer=$!
# ~3 s of writes; on a loaded machine, up to 20 s more until at least 10 are acknowledged.
sleep 3
for _ in $(seq 1 100); do
    [ "$(wc -l <"$ROLES_ACKED")" -ge 10 ] && break
    kill -0 "$roles_writer" 2>/dev/null || break
    sleep 0.2
done
if kill -0 "$roles_writer" 2>/dev/null; then pass "durability: the writer is mid-stream when the server is killed"; else fail "durability: the writer is mid-stream when the server is killed" "$(cat "$ROLES_WRITER_END")"; fi
{ kill -9 "$SERVER_PID"; wait "$SERVER_PID"; } 2>/dev/null # (no "Killed" job notice)
expect_eq "durability: the server died of SIGKILL" 137 "$?"
SERVER_PID=""
wait "$roles_writer"
expect_eq "durability: the writer stopped because the server was gone" "connection failed" "$(cat "$ROLES_WRITER_END")"
roles_count=$(wc -l <"$ROLES_ACKED" | tr -d ' ')
roles_last=$(tail -n 1 "$ROLES_ACKED" | cut -f1)
if [ "$roles_count" -ge 10 ]; then pass "durability: $roles_count writes acknowledged before the kill"; else fail "durability: at least 10 writes acknowledged" "$roles_count"; fi
expect_eq "durability: acknowledged revisions are consecutive from r2" "$(seq 2 $((roles_count + 1)) | paste -sd' ')" \
    "$(cut -f1 "$ROLES_ACKED" | paste -sd' ')"

ROLES_LOG2="$WORK/roles-restart.log"
DATA_DIR="$ROLES_DATA" start_server "$ROLES_LOG2" "${ROLES_FLAGS[@]}"
echo "roles server restarted at $BASE_URL (pid $SERVER_PID)"
ROLES_API="$BASE_URL/v1/admin"
expect_match "restart: the store opens, nothing re-seeded" 'store.builtins_added=0 store.builtins_updated=0 .*store opened' "$(cat "$ROLES_LOG2")"
if grep -Eq ' (error|critical|warning) ' "$ROLES_LOG2"; then fail "restart: no errors or warnings logged" "$(grep -E ' (error|critical|warning) ' "$ROLES_LOG2" | head -n 3)"; else pass "restart: no errors or warnings logged"; fi
fetch "$BASE_URL/readyz"
expect_eq "restart: ready with 16 templates" "ready 16" "$(json '"\(.status) \(.templates)"')"
expect_eq "restart: integrity_check" ok "$(python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(db.execute("PRAGMA integrity_check").fetchone()[0])' "$ROLES_DATA/store.sqlite" 2>&1)"

fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/$ROLES_ID"
roles_current=$(json .revision)
# One write may have been committed but not acknowledged when the server died.
if [ -n "$roles_last" ] && [ "$roles_current" -ge "$roles_last" ] 2>/dev/null && [ "$roles_current" -le $((roles_last + 1)) ]; then
    pass "restart: current revision r$roles_current is the last acknowledged (r$roles_last) or one after"
else
    fail "restart: current revision is the last acknowledged or one after" "current '$roles_current', last acknowledged '$roles_last'"
fi
roles_listed="$WORK/listed.txt"
: >"$roles_listed"
roles_page=1
while :; do
    fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/$ROLES_ID/revisions?pageSize=200&page=$roles_page"
    [ "$STATUS" = 200 ] || break
    json '.items[].revision' >>"$roles_listed"
    [ "$(json '.page * .pageSize < .total')" = true ] || break
    roles_page=$((roles_page + 1))
done
expect_eq "restart: the history lists r$roles_current..r1, newest first" "$(seq "${roles_current:-0}" -1 1 | paste -sd' ')" \
    "$(paste -sd' ' "$roles_listed")"
roles_missing=""
while IFS=$'\t' read -r rev title; do
    grep -qx "$rev" "$roles_listed" || roles_missing="$roles_missing r$rev(not listed)"
    fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/$ROLES_ID/revisions/$rev"
    [ "$STATUS $(json .template.strings.fr.title)" = "200 $title" ] ||
        roles_missing="$roles_missing r$rev($STATUS '$(json .template.strings.fr.title)' instead of '$title')"
done <"$ROLES_ACKED"
expect_eq "restart: every acknowledged revision is stored with its title ($roles_count)" "" "$roles_missing"
fetch -H "$ROLES_VIEWER" "$ROLES_API/templates/$ROLES_ID/revisions/${roles_current:-0}"
roles_current_title=$(json .template.strings.fr.title)
fetch "$BASE_URL/v1/templates/$ROLES_ID?locale=fr"
expect_eq "restart: clients get the current revision's title" "$roles_current_title" "$(json .title)"
# …which is the last acknowledged title, or the one of the write in flight at the kill.
if [ "$roles_current" = "$roles_last" ]; then
    roles_expected=$(tail -n 1 "$ROLES_ACKED" | cut -f2)
else
    roles_expected="Écriture durable n° $((roles_count + 1))"
fi
expect_eq "restart: the title is the last acknowledged one or the one in flight" "$roles_expected" "$(json .title)"
fetch -X PUT -H "$ROLES_EDITOR" -H 'Content-Type: application/json' -H "If-Match: \"r$roles_current\"" \
    -d "$(roles_fr "Après le redémarrage")" "$ROLES_API/templates/$ROLES_ID/strings/fr"
expect_eq "restart: the store takes writes again" "200 \"r$((roles_current + 1))\"" "$STATUS $(header ETag)"

stop_server
expect_eq "roles server: SIGTERM exits 0" "0" "${STOP_STATUS:-still running after 15 s}"
