# GET /metrics: the Prometheus text format, requests labelled by route pattern (never by path),
# gauges sampled at the scrape, store commits timed. Counts are compared before and after, since
# the earlier test files have already sent requests to this server.

# metric SERIES: the value of one sample (`name{labels}` as emitted) in the last body; 0 when absent.
metric() {
    awk -v series="$1" 'index($0, series " ") == 1 { value = $NF; found = 1 } END { print found ? value : 0 }' "$BODY"
}
# as_int VALUE: a sample value without its `.0`.
as_int() { printf '%.0f' "$1"; }

MET_OK='http_requests_total{route="/v1/templates/{id}",method="GET",status="200"}'
MET_UNKNOWN_ID='http_requests_total{route="/v1/templates/{id}",method="GET",status="404"}'
MET_UNMATCHED='http_requests_total{route="unmatched",method="GET",status="404"}'
MET_LATENCY='http_request_duration_seconds_count{route="/v1/templates/{id}"}'
MET_COMMITS='store_commit_duration_seconds_count{store="templates"}'

fetch "$BASE_URL/metrics"
expect_eq "metrics: 200" 200 "$STATUS"
expect_eq "metrics: Prometheus text format" "text/plain; version=0.0.4; charset=utf-8" "$(header Content-Type)"
expect_eq "metrics: not cached" no-store "$(header Cache-Control)"
for met_series in http_requests_total:counter http_request_duration_seconds:histogram http_open_connections:gauge \
    http_memo_entries:gauge access_log_dropped_lines_total:counter \
    catalogue_revision:gauge catalogue_templates:gauge store_commit_duration_seconds:histogram events_total:counter; do
    expect_eq "metrics: ${met_series%%:*} is a ${met_series##*:}" 1 "$(grep -cx "# TYPE ${met_series%%:*} ${met_series##*:}" "$BODY")"
done
for met_outcome in accepted duplicate rejected; do
    expect_eq "metrics: events_total{outcome=\"$met_outcome\"} is exported" 1 \
        "$(grep -c "^events_total{outcome=\"$met_outcome\"} [0-9]" "$BODY")"
done
expect_eq "metrics: no access-log line dropped" 0 "$(metric access_log_dropped_lines_total)"
expect_eq "metrics: event commits are exported" 1 "$(grep -c '^store_commit_duration_seconds_count{store="events"} ' "$BODY")"
expect_match "metrics: the scrape's own connection is open" '^[1-9][0-9]*$' "$(as_int "$(metric http_open_connections)")"
expect_match "metrics: earlier client requests left remembered answers" '^[1-9][0-9]*$' \
    "$(as_int "$(metric http_memo_entries)")"
met_ok=$(metric "$MET_OK")
met_unknown_id=$(metric "$MET_UNKNOWN_ID")
met_unmatched=$(metric "$MET_UNMATCHED")
met_latency=$(metric "$MET_LATENCY")
met_commits=$(metric "$MET_COMMITS")
met_revision=$(as_int "$(metric catalogue_revision)")
met_templates=$(as_int "$(metric catalogue_templates)")
fetch "$BASE_URL/readyz"
expect_eq "metrics: catalogue_templates is what /readyz counts" "$(json .templates)" "$met_templates"

for _ in 1 2 3; do curl -s -o /dev/null "$BASE_URL/v1/templates/connectionRefused?locale=fr&platform=ios"; done
curl -s -o /dev/null "$BASE_URL/v1/templates/metricsNoSuchTemplate"
curl -s -o /dev/null "$BASE_URL/metrics-no-such-path/$RANDOM"
# A published change: create a scratch template (the admin token of test_04_admin.sh).
MET_ID=metricsScratch
MET_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
jq --arg id "$MET_ID" '.id = $id | del(.aliases)' "$ROOT/config/templates/noDocuments.json" >"$WORK/$MET_ID.json"
fetch -X PUT -H "$MET_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary @"$WORK/$MET_ID.json" "$BASE_URL/v1/admin/templates/$MET_ID"
expect_eq "metrics: the scratch template is created" 201 "$STATUS"

fetch "$BASE_URL/metrics"
expect_eq "metrics: three 200s more on /v1/templates/{id}" $((met_ok + 3)) "$(metric "$MET_OK")"
expect_eq "metrics: an unknown template is a 404 of /v1/templates/{id}" $((met_unknown_id + 1)) "$(metric "$MET_UNKNOWN_ID")"
expect_eq "metrics: an unknown path is a 404 of route unmatched" $((met_unmatched + 1)) "$(metric "$MET_UNMATCHED")"
expect_eq "metrics: the latency histogram counts the four" $((met_latency + 4)) "$(metric "$MET_LATENCY")"
expect_eq "metrics: the latency +Inf bucket equals the count" "$(metric "$MET_LATENCY")" \
    "$(metric 'http_request_duration_seconds_bucket{route="/v1/templates/{id}",le="+Inf"}')"
expect_eq "metrics: the create is counted under its pattern" 1 \
    "$(grep -c '^http_requests_total{route="/v1/admin/templates/{id}",method="PUT",status="201"} ' "$BODY")"
expect_eq "metrics: one more template store commit" $((met_commits + 1)) "$(metric "$MET_COMMITS")"
expect_eq "metrics: catalogue_revision moved by one" $((met_revision + 1)) "$(as_int "$(metric catalogue_revision)")"
expect_eq "metrics: catalogue_templates counts the new one" $((met_templates + 1)) "$(as_int "$(metric catalogue_templates)")"
expect_eq "metrics: no raw path becomes a label" 0 "$(grep -c 'connectionRefused\|metricsNoSuchTemplate\|metrics-no-such-path' "$BODY")"

met_etag=$(curl -s -o /dev/null -D - -H "$MET_AUTH" "$BASE_URL/v1/admin/templates/$MET_ID" | awk 'tolower($1)=="etag:"{print $2}' | tr -d '\r')
fetch -X DELETE -H "$MET_AUTH" -H "If-Match: $met_etag" "$BASE_URL/v1/admin/templates/$MET_ID"
expect_eq "metrics: the scratch template is deleted" 204 "$STATUS"

fetch -I "$BASE_URL/metrics"
expect_eq "metrics: HEAD 200" 200 "$STATUS"
expect_eq "metrics: HEAD has the GET's Content-Type" "text/plain; version=0.0.4; charset=utf-8" "$(header Content-Type)"
fetch -X POST --data-binary x "$BASE_URL/metrics"
expect_eq "metrics: POST 405" 405 "$STATUS"
expect_eq "metrics: Allow" "GET, HEAD" "$(header Allow)"
