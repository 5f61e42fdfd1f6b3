# Copy experiments through the admin API: create (If-None-Match: *), read, 422 with pointers
# (a variant's copy breaks a rule in a locale it overrides), start, the frozen split (409),
# one running experiment per template, stop, revisions, roles.

EX_API="$BASE_URL/v1/admin/experiments"
EX_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"

# ex_put ID PRECONDITION-HEADER JSON [QUERY]: PUT an experiment.
ex_put() {
    fetch -X PUT -H "$EX_AUTH" -H 'Content-Type: application/json' -H "$2" --data-binary "$3" "$EX_API/$1${4:-}"
}

# ex_doc ID STATUS WEIGHT-OF-CONTROL [RETRY-LABEL]: an experiment on connectionRefused.
ex_doc() {
    jq -cn --arg id "$1" --arg status "$2" --argjson w "$3" --arg lbl "${4:-Reconnect}" '{
        id: $id, templateId: "connectionRefused", status: $status, coverage: 1,
        primaryMetric: {type: "tap", action: "retry"},
        variants: [
            {key: "control", weight: $w},
            {key: "reconnect", weight: (1 - $w), strings: {en: {"actions.retry": $lbl, title: "No connection"}}}
        ]}'
}

fetch -H "$EX_AUTH" "$EX_API/retry-wording"
expect_eq "experiment: unknown is 404" 404 "$STATUS"
expect_eq "experiment: unknown is unknown-experiment" "urn:empty-state:problem:unknown-experiment" "$(json .type)"

ex_put retry-wording 'If-None-Match: *' "$(ex_doc retry-wording draft 0.5 OK)"
expect_eq "experiment: a vague label in a variant is 422" 422 "$STATUS"
expect_eq "experiment: the 422 points into the variant" "/variants/1/strings/en/actions.retry" \
    "$(json '.errors[0].pointer')"

ex_put retry-wording 'If-None-Match: *' "$(ex_doc retry-wording draft 0.5 | jq -c '.variants[1].weight = 0.6')"
expect_eq "experiment: weights not adding up to 1 is 422" 422 "$STATUS"
expect_eq "experiment: … at /variants" "/variants" "$(json '.errors[0].pointer')"

ex_put retry-wording 'If-None-Match: *' "$(ex_doc retry-wording draft 0.5)" '?validateOnly=true'
expect_eq "experiment: validateOnly is 200" 200 "$STATUS"
expect_eq "experiment: validateOnly says valid" true "$(json .valid)"
fetch -H "$EX_AUTH" "$EX_API/retry-wording"
expect_eq "experiment: validateOnly stores nothing" 404 "$STATUS"

ex_put retry-wording 'X-None: 1' "$(ex_doc retry-wording draft 0.5)"
expect_eq "experiment: a write without a precondition is 428" 428 "$STATUS"

ex_put retry-wording 'If-None-Match: *' "$(ex_doc retry-wording draft 0.5)"
expect_eq "experiment: create is 201" 201 "$STATUS"
expect_eq "experiment: create has ETag r1" '"r1"' "$(header ETag)"
expect_eq "experiment: create has a Location" "/v1/admin/experiments/retry-wording" "$(header Location)"
expect_eq "experiment: a draft has no start" null "$(json .experiment.startedAt)"

ex_put retry-wording 'If-Match: "r1"' "$(ex_doc retry-wording draft 0.4)"
expect_eq "experiment: a draft's weights may change" 200 "$STATUS"

ex_put retry-wording 'If-Match: "r1"' "$(ex_doc retry-wording running 0.5)"
expect_eq "experiment: an old revision is 412" 412 "$STATUS"

ex_put retry-wording 'If-Match: "r2"' "$(ex_doc retry-wording running 0.5)"
expect_eq "experiment: start is 200" 200 "$STATUS"
expect_eq "experiment: start is stamped" true "$(json '.experiment.startedAt | type == "string"')"

ex_put retry-wording 'If-Match: "r3"' "$(ex_doc retry-wording running 0.4)"
expect_eq "experiment: weights are frozen while running (409)" 409 "$STATUS"
expect_eq "experiment: … split-frozen" "urn:empty-state:problem:split-frozen" "$(json .type)"
expect_eq "experiment: … pointing at the weight" "/variants/0/weight" "$(json '.errors[0].pointer')"

ex_put second-test 'If-None-Match: *' "$(ex_doc second-test draft 0.5)"
ex_put second-test 'If-Match: "r1"' "$(ex_doc second-test running 0.5)"
expect_eq "experiment: one running experiment per template (409)" 409 "$STATUS"
expect_eq "experiment: … template-in-experiment" "urn:empty-state:problem:template-in-experiment" "$(json .type)"

fetch -H "$EX_AUTH" "$EX_API"
expect_eq "experiment: list" "retry-wording second-test" "$(json '[.items[].experiment.id] | sort | join(" ")')"

fetch -H "$EX_AUTH" "$EX_API/retry-wording/revisions"
expect_eq "experiment: three revisions" "3 2 1" "$(json '[.items[].revision] | join(" ")')"

fetch -H "$EX_AUTH" -H 'If-None-Match: "r3"' "$EX_API/retry-wording"
expect_eq "experiment: If-None-Match on the current revision is 304" 304 "$STATUS"
