# --admin-tokens-file: secrets kept out of the command line. Refused (exit 78) unless the file is
# owner-only, or when a line is not a token (named by number, the secret never echoed); a token
# from the file authorizes the admin API. Runs its own servers beside the suite's.

TOK_FILE="$WORK/admin-tokens"
TOK_SECRET="file-editor-secret-$$-0123456789"
TOK_VIEWER="file-viewer-secret-$$-0123456789"
printf '# ops tokens\n\nfile-editor:editor:%s\n  file-viewer:viewer:%s  \r\n' "$TOK_SECRET" "$TOK_VIEWER" >"$TOK_FILE"

chmod 0644 "$TOK_FILE"
"$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/tok-data" \
    --admin-tokens-file "$TOK_FILE" >"$WORK/tok.log" 2>&1
expect_eq "tokens file 0644: refused (exit 78)" 78 "$?"
expect_match "tokens file 0644: names the path and the mode" "admin tokens file $TOK_FILE has mode 0644" \
    "$(cat "$WORK/tok.log")"
chmod 0640 "$TOK_FILE"
EMPTY_STATE_ADMIN_TOKENS_FILE="$TOK_FILE" "$BIN" --port 0 --config-dir "$ROOT/config" \
    --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/tok-data" >"$WORK/tok.log" 2>&1
expect_eq "tokens file 0640 from the environment: refused (exit 78)" 78 "$?"

TOK_BAD="$WORK/admin-tokens-bad"
printf 'ok:editor:%s\n# comment\nbroken:owner:%s\n' "$TOK_SECRET" "$TOK_VIEWER" >"$TOK_BAD"
chmod 0600 "$TOK_BAD"
"$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/tok-data" \
    --admin-tokens-file "$TOK_BAD" >"$WORK/tok.log" 2>&1
expect_eq "tokens file with a bad line: refused (exit 78)" 78 "$?"
expect_match "tokens file with a bad line: names the line" "$TOK_BAD, line 3: not a token" "$(cat "$WORK/tok.log")"
if grep -qF -e "$TOK_SECRET" -e "$TOK_VIEWER" "$WORK/tok.log"; then
    fail "tokens file with a bad line: no secret echoed"
else
    pass "tokens file with a bad line: no secret echoed"
fi
"$BIN" --port 0 --admin-tokens-file "$WORK/no-such-file" >"$WORK/tok.log" 2>&1
expect_eq "missing tokens file: refused (exit 78)" 78 "$?"
expect_match "--help recommends --admin-tokens-file" 'admin-tokens-file' "$("$BIN" --help 2>&1)"

chmod 0600 "$TOK_FILE"
"$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/tok-data" --admin-tokens-file "$TOK_FILE" >"$WORK/tok.log" 2>&1 &
TOK_PID=$!
TOK_PORT=""
for _ in $(seq 100); do
    TOK_PORT=$(grep -oE 'http\.port=[0-9]+' "$WORK/tok.log" | head -n 1 | cut -d= -f2)
    [ -n "$TOK_PORT" ] && break
    kill -0 "$TOK_PID" 2>/dev/null || break
    sleep 0.1
done
expect_match "tokens file 0600: the server starts" '^[0-9]+$' "$TOK_PORT"
TOK_URL="http://127.0.0.1:$TOK_PORT/v1/admin"
fetch -H "Authorization: Bearer $TOK_SECRET" "$TOK_URL/templates?pageSize=1"
expect_eq "a token from the file authorizes an admin read" 200 "$STATUS"
fetch -X DELETE -H "Authorization: Bearer $TOK_VIEWER" -H 'If-Match: "r1"' "$TOK_URL/templates/loading"
expect_eq "the file's viewer token (spaces and CRLF trimmed) is a viewer: 403" 403 "$STATUS"
fetch -H "Authorization: Bearer wrong-secret-0123456789" "$TOK_URL/templates"
expect_eq "another secret: 401" 401 "$STATUS"
if tr '\0' ' ' <"/proc/$TOK_PID/cmdline" | grep -qF "$TOK_SECRET"; then
    fail "the secret is not on the command line"
else
    pass "the secret is not on the command line"
fi
if [ -e "$WORK/tok-data/admin-token" ]; then
    fail "no token generated when the file gives some"
else
    pass "no token generated when the file gives some"
fi
kill -TERM "$TOK_PID"
wait "$TOK_PID" 2>/dev/null
