# Property-based contract testing with schemathesis (4.x) against a fresh server: every check
# (schemathesis.toml turns them all on),
# every phase (examples, coverage, fuzzing, stateful through the document's links), with the
# editor token. Sourced by run.sh. Tests/integration/schemathesis.toml says which statuses are
# right where openapi.yaml cannot state the rule. SCHEMATHESIS_EXAMPLES (default 20) bounds the
# test cases per operation; SCHEMATHESIS_SEED (default 1) makes a run repeatable.
echo "== schemathesis (generated requests against openapi.yaml)"

SCHEMATHESIS_DATA="$WORK/schemathesis-data"
DATA_DIR="$SCHEMATHESIS_DATA" start_server "$WORK/schemathesis-server.log" --log-level notice
SCHEMATHESIS_LOG="$WORK/schemathesis.log"
started=$(date +%s)
# `timeout`: a run that hangs fails instead of holding make test.
if timeout 600 schemathesis --config-file "$HERE/schemathesis.toml" run "$ROOT/openapi.yaml" \
    --url "$BASE_URL" -H "Authorization: Bearer $(cat "$SCHEMATHESIS_DATA/admin-token")" \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-20}" --seed "${SCHEMATHESIS_SEED:-1}" \
    --request-timeout 10 --generation-database none --no-color >"$SCHEMATHESIS_LOG" 2>&1; then
    summary=$(grep -E '^ *[0-9]+ generated' "$SCHEMATHESIS_LOG" | sed 's/^ *//')
    pass "schemathesis: all checks, stateful included, no failure (${summary:-?}; $(($(date +%s) - started)) s)"
else
    status=$?
    [ "$status" = 124 ] && echo "schemathesis did not finish within 600 s (timeout)"
    sed -n '/^=* FAILURES =*$/,$p' "$SCHEMATHESIS_LOG" | head -n 120
    tail -n 5 "$SCHEMATHESIS_LOG"
    fail "schemathesis: all checks, stateful included, no failure" "see the failures above"
fi
stop_server
expect_eq "the server under schemathesis stops with 0" "0" "${STOP_STATUS:-still running after 15 s}"
expect_match "the server under schemathesis logged no error" "^$" \
    "$(grep -E ' (error|critical) ' "$WORK/schemathesis-server.log")"
