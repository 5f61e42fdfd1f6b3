# Token rotation without a restart (docs/security.md, "Rotating admin tokens"): the tokens file
# is read again when it changes (checked every second) and at once on SIGHUP. A name may have
# several tokens while clients move; a removed line stops working; a file that cannot be used
# leaves the tokens in use as they were, and says so; a flag's token is kept whatever the file
# holds; the console's sessions of a name end with its last token. Runs its own server.
echo "== admin tokens: rotation"

ROT_DIR="$WORK/rotation"
mkdir -p "$ROT_DIR"
ROT_OLD="rotation-old-$$-0123456789"
ROT_NEW="rotation-new-$$-0123456789"
ROT_FLAG="rotation-flag-$$-0123456789"
(umask 077 && printf 'ci:editor:%s\n' "$ROT_OLD" >"$ROT_DIR/tokens")
"$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$ROT_DIR/data" --admin-tokens-file "$ROT_DIR/tokens" --admin-token "break-glass:editor:$ROT_FLAG" \
    >"$ROT_DIR/log" 2>&1 &
ROT_PID=$!
ROT_URL=""
for _ in $(seq 100); do
    ROT_PORT=$(grep -o 'http.port=[0-9]*' "$ROT_DIR/log" | head -n 1 | cut -d= -f2)
    [ -n "$ROT_PORT" ] && ROT_URL="http://127.0.0.1:$ROT_PORT" && break
    sleep 0.1
done

# rot_status SECRET: the status of an admin read with that token.
rot_status() {
    curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "$ROT_URL/v1/admin/templates?pageSize=1"
}
# rot_until SECRET STATUS: waits (up to 5 s) for an admin read with SECRET to answer STATUS; prints the last.
rot_until() {
    local seen
    for _ in $(seq 50); do
        seen=$(rot_status "$1")
        [ "$seen" = "$2" ] && break
        sleep 0.1
    done
    echo "$seen"
}
# rot_write CONTENT: replaces the file as editors and Kubernetes do (a new file renamed over it).
rot_write() {
    (umask 077 && printf '%b' "$1" >"$ROT_DIR/tokens.new" && mv "$ROT_DIR/tokens.new" "$ROT_DIR/tokens")
}

expect_eq "rotation: the old token works" 200 "$(rot_status "$ROT_OLD")"
expect_eq "rotation: the new one not yet" 401 "$(rot_status "$ROT_NEW")"
rot_write "ci:editor:$ROT_OLD\nci:editor:$ROT_NEW\n"
expect_eq "rotation: the file changed: the new token works within a second or two" 200 "$(rot_until "$ROT_NEW" 200)"
expect_eq "rotation: … and the old one still does (two tokens, one name)" 200 "$(rot_status "$ROT_OLD")"
fetch -H "Authorization: Bearer $ROT_NEW" -H 'Content-Type: application/json' -X POST \
    -d "{\"token\":\"$ROT_NEW\"}" "$ROT_URL/v1/admin/session"
ROT_COOKIE=$(header Set-Cookie | cut -d';' -f1)
expect_match "rotation: a console session opened with the new token" '^(__Host-)?es_console=' "$ROT_COOKIE"

# Revoke the old one, with SIGHUP: no wait at all.
rot_write "ci:editor:$ROT_NEW\n"
kill -HUP "$ROT_PID"
expect_eq "rotation: SIGHUP: the removed token is refused" 401 "$(rot_until "$ROT_OLD" 401)"
expect_eq "rotation: … the new one works" 200 "$(rot_status "$ROT_NEW")"
expect_eq "rotation: … the server did not stop on SIGHUP" 1 "$(kill -0 "$ROT_PID" 2>/dev/null && echo 1)"
expect_eq "rotation: the flag's token is kept whatever the file holds" 200 "$(rot_status "$ROT_FLAG")"

# A file that cannot be used changes nothing, and says so.
chmod 0644 "$ROT_DIR/tokens"
sleep 2
expect_eq "rotation: a file open to others is refused: the tokens in use stay" 200 "$(rot_status "$ROT_NEW")"
expect_match "rotation: … the log says so" 'admin tokens file refused; the tokens in use are unchanged' \
    "$(cat "$ROT_DIR/log")"
expect_match "rotation: … and counts it" 'admin_tokens_file_reloads_total\{outcome="refused"\} [1-9]' \
    "$(curl -s "$ROT_URL/metrics")"
chmod 0600 "$ROT_DIR/tokens"

# The last token of a name removed: its console sessions end too.
rot_write "ops:editor:$ROT_OLD\n"
expect_eq "rotation: the name's last token removed" 401 "$(rot_until "$ROT_NEW" 401)"
fetch -H "Cookie: $ROT_COOKIE" "$ROT_URL/v1/admin/session"
expect_eq "rotation: … ends the sessions opened with it" 401 "$STATUS"
if grep -qF -e "$ROT_OLD" -e "$ROT_NEW" "$ROT_DIR/log"; then
    fail "rotation: no secret in the log"
else
    pass "rotation: no secret in the log"
fi
kill -TERM "$ROT_PID"
wait "$ROT_PID" 2>/dev/null
