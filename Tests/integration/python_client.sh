# The client openapi-python-client generates from openapi.yaml, against a fresh server: the
# generator must say nothing (a warning means a part of the contract was dropped), and
# python_client_smoke.py calls every operation through the generated code. Sourced by run.sh.
echo "== python client (openapi-python-client against openapi.yaml)"

PY_CLIENT="$WORK/python-client"
mkdir -p "$PY_CLIENT"
if (cd "$PY_CLIENT" && openapi-python-client generate --path "$ROOT/openapi.yaml" --meta none \
    --config "$HERE/python-client.yaml" --output-path "$PY_CLIENT/empty_state_client") >"$WORK/python-generate.log" 2>&1; then
    pass "openapi-python-client generates a client"
else
    cat "$WORK/python-generate.log"
    fail "openapi-python-client generates a client" "see above"
fi
expect_eq "openapi-python-client gives no warning" "" \
    "$(grep -v -E '^(Generating |$)' "$WORK/python-generate.log" | head -n 20)"

EDITOR_TOKEN="py-editor:editor:$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
VIEWER_TOKEN="py-viewer:viewer:$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
ADMIN_TOKEN="py-admin:admin:$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
DATA_DIR="$WORK/python-client-data" start_server "$WORK/python-client-server.log" \
    --admin-token "$EDITOR_TOKEN" --admin-token "$VIEWER_TOKEN" --admin-token "$ADMIN_TOKEN"
if python3 "$HERE/python_client_smoke.py" --client-dir "$PY_CLIENT" --base-url "$BASE_URL" \
    --editor-token "${EDITOR_TOKEN##*:}" --viewer-token "${VIEWER_TOKEN##*:}" --admin-token "${ADMIN_TOKEN##*:}" \
    >"$WORK/python-client.log" 2>&1; then
    pass "every operation through the generated Python client ($(tail -n 1 "$WORK/python-client.log"))"
else
    grep -E '^FAIL|Error|Traceback' "$WORK/python-client.log" | head -n 30
    tail -n 5 "$WORK/python-client.log"
    [ -n "${KEEP_LOGS:-}" ] && cp "$WORK/python-client.log" "$KEEP_LOGS"
    fail "every operation through the generated Python client" "$(tail -n 1 "$WORK/python-client.log")"
fi
stop_server
expect_eq "the server under the Python client stops with 0" "0" "${STOP_STATUS:-still running after 15 s}"
