# The Makefile's entry points: a bare `make` lists the targets and changes nothing; `make run`
# installs only what building needs (no pip, no test tools). Sourced by run.sh.
echo "== Makefile"

bare=$(make -s -C "$ROOT" --no-print-directory 2>&1)
expect_match "a bare make lists run with its description" '^  run +build and serve' "$bare"
expect_match "a bare make lists test" '^  test +build, Swift tests' "$bare"
expect_match "a bare make lists help itself" '^  help ' "$bare"
# -n: what `make run` would do, without doing it.
run_plan=$(make -n -C "$ROOT" --no-print-directory run 2>&1)
expect_match "make run builds and starts the server" 'empty-state-server --host 127.0.0.1 --port 8080' "$run_plan"
if printf '%s' "$run_plan" | grep -qE 'pip|schemathesis|hadolint|chromium'; then
    fail "make run installs no test tools" "$(printf '%s' "$run_plan" | grep -E 'pip|schemathesis|hadolint|chromium' | head -n 1)"
else
    pass "make run installs no test tools"
fi
test_plan=$(make -n -C "$ROOT" --no-print-directory deps-test 2>&1)
expect_match "make test's deps-test installs the test tools" 'schemathesis' "$test_plan"
