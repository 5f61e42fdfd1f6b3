# Copy experiments end to end with curl: create an experiment on somethingWentWrong (control and
# `b`, another English title; metric: taps on retry), read its results as a draft, start it, fetch
# the template as 1,000 installs (X-Install-ID), post their displayed events and some taps (with
# experimentId/variant/installId; b converts three times as often), one install in both variants
# and a batch sent twice, read the results (exact installs, conversions, events, the verdict), ship
# the winner, and check the client API serves the winner's copy to every install.

XR_API="$BASE_URL/v1/admin/experiments"
XR_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
XR_TEMPLATE=somethingWentWrong
XR_CONTROL_TITLE="Something went wrong"
XR_B_TITLE="We hit a problem on our side"
XR_INSTALLS=1000

# xr_doc STATUS: the experiment document.
xr_doc() {
    jq -cn --arg status "$1" --arg title "$XR_B_TITLE" --arg template "$XR_TEMPLATE" '{
        id: "results-e2e", templateId: $template, status: $status, coverage: 1,
        primaryMetric: {type: "tap", action: "retry"},
        variants: [{key: "control", weight: 0.5}, {key: "b", weight: 0.5, strings: {en: {title: $title}}}]}'
}

# xr_fetch_as FIRST LAST [HEADER]: GETs the template (en) once per install xr-FIRST … xr-LAST, in
# one curl over one connection; prints a line per answer: install, variant ("-" for none), title,
# revision. HEADER "none" sends no X-Install-ID.
xr_fetch_as() {
    local config="$WORK/xr-curl.conf" n
    : >"$config"
    for n in $(seq "$1" "$2"); do
        [ "$n" -gt "$1" ] && echo next >>"$config"
        printf 'url = "%s"\nwrite-out = "\\n"\n' "$BASE_URL/v1/templates/$XR_TEMPLATE?locale=en" >>"$config"
        [ "${3:-}" = none ] || printf 'header = "X-Install-ID: xr-%s"\n' "$n" >>"$config"
    done
    paste <(seq "$1" "$2" | sed 's/^/xr-/') \
        <(curl -s -K "$config" | jq -r '[(.experiment.variant // "-"), .title, .revision] | @tsv')
}

# xr_post FILE: POSTs the events of FILE (one JSON object a line) in batches of 150 (the
# integration server takes 64 KiB bodies); prints each answer's status and accepted count.
xr_post() {
    local batch
    rm -f "$WORK"/xr-batch-*
    split -l 150 "$1" "$WORK/xr-batch-"
    for batch in "$WORK"/xr-batch-*; do
        jq -cs '{events: .}' "$batch" >"$batch.json"
        fetch -X POST -H 'Content-Type: application/json' --data-binary @"$batch.json" "$BASE_URL/v1/events"
        echo "$STATUS $(json .accepted) $(json .duplicates) $(json '.rejected | length')"
    done
}

fetch -H "$XR_AUTH" "$XR_API/results-e2e/results"
expect_eq "results: an unknown experiment is 404" 404 "$STATUS"

fetch -X PUT -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary "$(xr_doc draft)" "$XR_API/results-e2e"
expect_eq "results: the experiment is created" 201 "$STATUS"

fetch -H "$XR_AUTH" "$XR_API/results-e2e/results"
expect_eq "results: a draft's results are 200" 200 "$STATUS"
expect_eq "results: a draft is collecting, with zero counts" "collecting control:0 b:0" \
    "$(json '[.verdict] + [.variants[] | "\(.key):\(.installs)"] | join(" ")')"

fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    --data-binary '{"variant":"b"}' "$XR_API/results-e2e/ship"
expect_eq "ship: a draft is 409" 409 "$STATUS"

fetch -X PUT -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    --data-binary "$(xr_doc running)" "$XR_API/results-e2e"
expect_eq "results: the experiment starts" 200 "$STATUS"

# 1,000 installs fetch the template: each is served its variant's copy, named in the body.
xr_served="$WORK/xr-served.tsv"
xr_fetch_as 1 "$XR_INSTALLS" >"$xr_served"
expect_eq "served: an answer per install" "$XR_INSTALLS" "$(wc -l <"$xr_served")"
expect_eq "served: every install gets control or b, with its copy" 0 \
    "$(awk -F'\t' -v c="$XR_CONTROL_TITLE" -v b="$XR_B_TITLE" \
        '!(($2 == "control" && $3 == c) || ($2 == "b" && $3 == b))' "$xr_served" | wc -l)"
xr_b=$(awk -F'\t' '$2 == "b"' "$xr_served" | wc -l)
xr_control=$((XR_INSTALLS - xr_b))
# Binomial(1000, 0.5): a standard deviation of about 16.
expect_eq "served: the split is about even ($xr_b in b)" true "$([ "$xr_b" -gt 430 ] && [ "$xr_b" -lt 570 ] && echo true)"
expect_eq "served: an install gets the same variant again" "$(sed -n 7p "$xr_served")" "$(xr_fetch_as 7 7)"

# Their events: every install displayed it; control installs numbered 0 mod 10 tap retry, b
# installs numbered 0–2 mod 10 tap retry and 5 mod 10 tap back (not the metric). Installs numbered
# 3 mod 4 are on Android, the others on iOS; those numbered 2 mod 4 run app version 10.1.0, the
# others 6.0.0; those numbered 0 mod 5 were installed in 2020, 1 mod 5 do not say, the others now
# (for the results per segment).
xr_prefix=$(printf '%08x' "$((RANDOM * 32768 + RANDOM))")
xr_now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
xr_events="$WORK/xr-events.ndjson"
jq -Rrc --arg p "$xr_prefix" --arg t "$xr_now" --arg template "$XR_TEMPLATE" '
    split("\t") | {install: .[0], variant: .[1], n: (.[0] | ltrimstr("xr-") | tonumber)}
    | . as $i
    | def ev($kind; $type): {
          id: "\($p)-0000-4000-\($kind)-\(("000000000000" + ($i.n | tostring))[-12:])",
          type: $type, templateId: $template, revision: 1, locale: "en",
          platform: (if $i.n % 4 == 3 then "android" else "ios" end),
          appVersion: (if $i.n % 4 == 2 then "10.1.0" else "6.0.0" end), occurredAt: $t,
          experimentId: "results-e2e", variant: $i.variant, installId: $i.install}
          + (if $i.n % 5 == 0 then {installedAt: "2020-01-01T00:00:00Z"} elif $i.n % 5 == 1 then {}
             else {installedAt: $t} end);
      ev("8000"; "displayed"),
      (if ($i.variant == "control" and $i.n % 10 == 0) or ($i.variant == "b" and $i.n % 10 < 3)
       then ev("8001"; "actionTapped") + {actionId: "retry"} else empty end),
      (if $i.variant == "b" and $i.n % 10 == 5 then ev("8002"; "actionTapped") + {actionId: "back"} else empty end)
' "$xr_served" >"$xr_events"
xr_expected_control_conversions=$(awk -F'\t' '$2 == "control" && substr($1, 4) % 10 == 0' "$xr_served" | wc -l)
xr_expected_b_conversions=$(awk -F'\t' '$2 == "b" && substr($1, 4) % 10 < 3' "$xr_served" | wc -l)
xr_expected_b_back=$(awk -F'\t' '$2 == "b" && substr($1, 4) % 10 == 5' "$xr_served" | wc -l)
xr_posted=$(xr_post "$xr_events")
expect_eq "events: every batch is 202 with nothing rejected" "" "$(grep -v '^202 [0-9]* 0 0$' <<<"$xr_posted")"
expect_eq "events: every event accepted" "$(wc -l <"$xr_events")" \
    "$(awk '{ s += $2 } END { print s }' <<<"$xr_posted")"
# The first batch again: duplicates, counted nowhere.
head -n 150 "$xr_events" >"$WORK/xr-again.ndjson"
expect_eq "events: a batch sent twice is all duplicates" "202 0 150 0" "$(xr_post "$WORK/xr-again.ndjson")"
# Install xr-1 comes back in the other variant: it is excluded, and counted as such.
xr_first_variant=$(sed -n 1p "$xr_served" | cut -f2)
xr_other=$([ "$xr_first_variant" = b ] && echo control || echo b)
jq -cn --arg p "$xr_prefix" --arg t "$xr_now" --arg template "$XR_TEMPLATE" --arg v "$xr_other" '{
    id: "\($p)-0000-4000-8003-000000000001", type: "displayed", templateId: $template, revision: 1,
    locale: "en", platform: "ios", appVersion: "6.0.0", occurredAt: $t,
    experimentId: "results-e2e", variant: $v, installId: "xr-1"}' >"$WORK/xr-crossed.ndjson"
expect_eq "events: the crossing event is accepted" "202 1 0 0" "$(xr_post "$WORK/xr-crossed.ndjson")"
# What xr-1 counted for goes with it.
xr_one_converted=$(awk -F'\t' 'NR == 1 { print (($2 == "control" && 1 % 10 == 0) || ($2 == "b" && 1 % 10 < 3)) ? 1 : 0 }' "$xr_served")

fetch -H "$XR_AUTH" "$XR_API/results-e2e/results"
expect_eq "results: 200" 200 "$STATUS"
expect_eq "results: one install excluded (seen in both variants)" 1 "$(json .excludedInstalls)"
if [ "$xr_first_variant" = b ]; then
    xr_control_installs=$xr_control
    xr_b_installs=$((xr_b - 1))
    xr_b_conversions=$((xr_expected_b_conversions - xr_one_converted))
    xr_control_conversions=$xr_expected_control_conversions
else
    xr_control_installs=$((xr_control - 1))
    xr_b_installs=$xr_b
    xr_control_conversions=$((xr_expected_control_conversions - xr_one_converted))
    xr_b_conversions=$xr_expected_b_conversions
fi
expect_eq "results: installs per variant, exact" "control:$xr_control_installs b:$xr_b_installs" \
    "$(json '[.variants[] | "\(.key):\(.installs)"] | join(" ")')"
expect_eq "results: conversions (installs that tapped retry)" "control:$xr_control_conversions b:$xr_b_conversions" \
    "$(json '[.variants[] | "\(.key):\(.conversions)"] | join(" ")')"
# Events from the rollups: the crossing event claimed a variant the assignment does not give
# xr-1, so it is stored under ~<variant> and counts as an event of neither.
expect_eq "results: displayed events per variant" "control:$xr_control b:$xr_b" \
    "$(json '[.variants[] | "\(.key):\(.displayed)"] | join(" ")')"
expect_eq "results: the excluded install, by reason" '{"afterStop":0,"beforeStart":0,"crossed":1,"notAssigned":0,"outsideTarget":0,"override":0}' \
    "$(jq -c .excluded "$BODY")"
expect_eq "results: tapped counts the metric's taps (retry), not back" \
    "control:$xr_expected_control_conversions b:$xr_expected_b_conversions" \
    "$(json '[.variants[] | "\(.key):\(.tapped)"] | join(" ")')"
expect_eq "results: enough data, no sample-ratio mismatch" "true false" "$(json '"\(.enoughData) \(.sampleRatio.mismatch)"')"
expect_eq "results: b wins (30 % against 10 %), sequentially and at a fixed horizon" "winner b winner b" \
    "$(json '"\(.verdict) \(.winner) \(.fixedHorizonVerdict) \(.fixedHorizonWinner)"')"
expect_eq "results: b's difference to control is positive and significant" "true true" \
    "$(json '.variants[1] | "\(.difference.lower > 0) \(.significant)"')"
expect_eq "results: b's confidence sequence lies above 0, wider than the one-look interval" "true true true" \
    "$(json '.variants[1] | "\(.sequential.lower > 0) \(.sequential.significant) \(.sequential.lower < .difference.lower)"')"
expect_eq "results: the verdict in words names b" true "$(json '.verdictText | test("\\bb\\b")')"
expect_eq "results: no plan, no progress" "null null" "$(json '"\(.plan) \(.progress)"')"
expect_eq "results: over time, one day so far with every install" "1 $xr_control_installs $xr_b_installs" \
    "$(json '"\(.timeline | length) \(.timeline[-1].variants[0].installs) \(.timeline[-1].variants[1].installs)"')"

# Per segment: the same results for each platform, adding up to the whole.
xr_whole="$WORK/xr-whole.json"
cp "$BODY" "$xr_whole"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results?segment=platform"
expect_eq "segments: 200, by platform, android then ios" "200 platform android,ios" \
    "$STATUS $(json .segment) $(json '[.segments[].value] | join(",")')"
expect_eq "segments: the whole is the same as without a segment" \
    "$(jq -c '[.variants[] | [.key, .installs, .conversions]]' "$xr_whole")" \
    "$(jq -c '[.variants[] | [.key, .installs, .conversions]]' "$BODY")"
expect_eq "segments: installs and conversions per variant add up to the whole" \
    "$(jq -c '[.variants[] | [.key, .installs, .conversions]]' "$xr_whole")" \
    "$(jq -c '[.segments[].results.variants[]] | group_by(.key) | map([.[0].key, (map(.installs) | add), (map(.conversions) | add)]) | sort_by(.[0] != "control")' "$BODY")"
xr_android=$(awk -F'\t' 'substr($1, 4) % 4 == 3' "$xr_served" | wc -l)
expect_eq "segments: android has every install numbered 3 mod 4" "$xr_android" \
    "$(json '[.segments[] | select(.value == "android") | .results.variants[].installs] | add')"
expect_eq "segments: the crossed install (xr-1, on iOS) is excluded in ios" "0 1" \
    "$(json '[.segments[] | .results.excluded.crossed] | map(tostring) | join(" ")')"
expect_eq "segments: each has a sequential verdict, and no events from the rollups" "true true" \
    "$(json '[.segments[].results | (.verdict | length > 0) and (.variants[1].sequential != null)] | all'\
) $(json '[.segments[].results.variants[] | has("displayed") or has("tapped")] | any | not')"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results?segment=appVersion"
expect_eq "segments: app versions in SemVer order (6.0.0 before 10.1.0)" "200 6.0.0,10.1.0" \
    "$STATUS $(json '[.segments[].value] | join(",")')"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results?segment=locale"
expect_eq "segments: one locale" "200 en" "$STATUS $(json '[.segments[].value] | join(",")')"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results?segment=newInstall"
xr_new_expected=$(awk -F'\t' 'substr($1, 4) % 5 >= 2' "$xr_served" | wc -l)
expect_eq "segments: existing and new installs (installed at or after the start), unknown last" \
    "200 existing,new,unknown $xr_new_expected" \
    "$STATUS $(json '.segments | map(.value // "unknown") | join(",")') $(json '[.segments[] | select(.value == "new") | .results.variants[].installs] | add')"
jq -cn --arg p "$xr_prefix" --arg t "$xr_now" --arg template "$XR_TEMPLATE" '{
    id: "\($p)-0000-4000-8004-000000000001", type: "displayed", templateId: $template, revision: 1,
    locale: "en", platform: "ios", appVersion: "6.0.0", occurredAt: $t,
    experimentId: "results-e2e", variant: "b", installId: "xr-bad-installed", installedAt: "yesterday"}' \
    >"$WORK/xr-bad-installed.ndjson"
expect_eq "events: an installedAt that is not RFC 3339 is rejected" "202 0 0 1" "$(xr_post "$WORK/xr-bad-installed.ndjson")"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results/export?segment=platform"
expect_eq "export per segment: a segment column, a row per segment and variant" \
    "200 segment,date,variant,installs android,control ios,b" \
    "$STATUS $(head -n 1 "$BODY" | cut -d, -f1-4) $(sed -n 2p "$BODY" | cut -d, -f1,3) $(tail -n 1 "$BODY" | cut -d, -f1,3)"
expect_eq "export per segment: 5 lines (a header, 2 segments × 2 variants)" 5 "$(wc -l <"$BODY")"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results/export?segment=country"
expect_eq "export per segment: an unknown segment is 400 naming the parameter" "400 segment" \
    "$STATUS $(json '.errors[0].parameter')"
fetch -H "$XR_AUTH" "$XR_API/results-e2e/results?segment=country"
expect_eq "segments: an unknown segment is 400 naming the parameter" "400 invalid-parameter segment" \
    "$STATUS $(json '.type | ltrimstr("urn:empty-state:problem:")') $(json '.errors[0].parameter')"

fetch -H "$XR_AUTH" "$XR_API/results-e2e/results/export"
expect_eq "export: CSV, a header and a row per variant" "200 text/csv; charset=utf-8 3" \
    "$STATUS $(header Content-Type) $(wc -l <"$BODY")"
expect_eq "export: control's row has its installs" "control,$xr_control_installs" \
    "$(sed -n 2p "$BODY" | cut -d, -f2,3)"

# The planning calculator: the note's 10 % → 11 % needs about 14,750 installs per variant.
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' \
    --data-binary '{"baselineRate":0.1,"minimumDetectableEffect":{"relative":0.1},"templateId":"'"$XR_TEMPLATE"'"}' \
    "$BASE_URL/v1/admin/experiment-plan"
expect_eq "plan: 200, 14,751 installs per variant at a fixed horizon, more sequentially" "200 [14751,14751] true" \
    "$STATUS $(jq -c .fixedHorizonInstalls "$BODY") $(json '.sequentialInstalls[0] > 14751')"
expect_eq "plan: the expected duration is read from the template's displays" displays "$(json .expectedDuration.basis)"
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' --data-binary '{"baselineRate":2,"minimumDetectableEffect":{"relative":0.1}}' \
    "$BASE_URL/v1/admin/experiment-plan"
expect_eq "plan: bad inputs are 422 with pointers" "422 /baselineRate" \
    "$STATUS $(json '[.errors[].pointer] | sort | join(" ")')"
expect_eq "results: control has no comparison with itself" "null null" \
    "$(json '.variants[0] | "\(.difference) \(.pValue)"')"

# Ship the winner.
fetch -H "$XR_AUTH" "$BASE_URL/v1/admin/templates/$XR_TEMPLATE"
xr_template_revision=$(json .revision)
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    --data-binary '{"variant":"b"}' "$XR_API/results-e2e/ship"
expect_eq "ship: a stale If-Match is 412" 412 "$STATUS"
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r2"' \
    --data-binary '{"variant":"nope"}' "$XR_API/results-e2e/ship"
expect_eq "ship: an unknown variant is 422 at /variant" "422 /variant" "$STATUS $(json '.errors[0].pointer')"
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r2"' \
    --data-binary '{"variant":"b"}' "$XR_API/results-e2e/ship"
expect_eq "ship: 200" 200 "$STATUS"
expect_eq "ship: the experiment is shipped, the template has a new revision" \
    "shipped $((xr_template_revision + 1))" "$(json '"\(.experiment.status) \(.shippedRevision)"')"
expect_eq "ship: the experiment's new ETag" '"r3"' "$(header ETag)"
fetch -H "$XR_AUTH" "$BASE_URL/v1/admin/audit?templateId=$XR_TEMPLATE&pageSize=1"
expect_eq "ship: the template's revision is in the audit trail" "$((xr_template_revision + 1))" \
    "$(json '.items[0].revision')"
# The experiment's own revisions are audited under `experiment`, apart from the templates'.
fetch -H "$XR_AUTH" "$BASE_URL/v1/admin/audit?kind=experiment&pageSize=100"
expect_eq "audit: kind=experiment lists the experiment's revisions under its id" \
    "results-e2e 3" "$(json '[.items[] | select(.experiment == "results-e2e")] | "\(.[0].experiment) \(.[0].revision)"')"
expect_eq "audit: an experiment's revision has no templateId" 0 "$(json '[.items[] | select(has("templateId"))] | length')"
fetch -H "$XR_AUTH" "$BASE_URL/v1/admin/audit?kind=template&pageSize=100"
expect_eq "audit: kind=template lists templates only" 0 \
    "$(json '[.items[] | select(has("templateId") | not) ] | length')"
fetch -H "$XR_AUTH" "$BASE_URL/v1/admin/audit/export?format=csv&kind=experiment"
expect_match "audit export: an experiment's kind is experiment" '^[^,]+,[^,]+,experiment,results-e2e,3,' \
    "$(sed -n 2p "$BODY")"

# Every install (control ones included) and a client without an install id get b's copy now.
xr_after="$WORK/xr-after.tsv"
xr_fetch_as 1 50 >"$xr_after"
expect_eq "shipped: 50 installs all get the winner's copy, outside any experiment" \
    "50 - $XR_B_TITLE $((xr_template_revision + 1))" \
    "$(cut -f2- "$xr_after" | sort | uniq -c | sed 's/^ *//' | tr '\t' ' ')"
fetch "$BASE_URL/v1/templates/$XR_TEMPLATE?locale=en"
expect_eq "shipped: without an install id too" "$XR_B_TITLE" "$(json .title)"
expect_eq "shipped: answers no longer vary on the install" "" "$(header Vary | grep -o X-Install-ID)"

fetch -H "$XR_AUTH" "$XR_API/results-e2e/results"
expect_eq "results: a shipped experiment's results stay readable" "200 shipped control:$xr_control_installs" \
    "$STATUS $(json '.status') $(json '.variants[0] | "\(.key):\(.installs)"')"
fetch -X POST -H "$XR_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r3"' \
    --data-binary '{"variant":"b"}' "$XR_API/results-e2e/ship"
expect_eq "ship: shipping again is 409" 409 "$STATUS"
