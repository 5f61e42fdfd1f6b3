# Revalidation, compression, HEAD and keep-alive.

url="$BASE_URL/v1/templates/pageNotAvailable?locale=es"
fetch "$url"
etag=$(header ETag)
fetch -H "If-None-Match: $etag" "$url"
expect_eq "304: If-None-Match with the current ETag" 304 "$STATUS"
expect_eq "304: no body" 0 "$(wc -c <"$BODY" | tr -d ' ')"
expect_eq "304: repeats the ETag" "$etag" "$(header ETag)"
fetch -H "If-None-Match: W/$etag" "$url"
expect_eq "304: weak comparison" 304 "$STATUS"
fetch -H 'If-None-Match: "0000000000000000", '"$etag" "$url"
expect_eq "304: one of a list" 304 "$STATUS"
fetch -H 'If-None-Match: "0000000000000000"' "$url"
expect_eq "200: a stale ETag gets the body" 200 "$STATUS"
fetch "$BASE_URL/v1/templates/pageNotAvailable?locale=fr"
if [ "$(header ETag)" != "$etag" ]; then pass "ETag differs between locales"; else fail "ETag differs between locales"; fi

bundle="$BASE_URL/v1/templates?locale=fr&platform=web"
fetch "$bundle"
plain_size=$(wc -c <"$BODY" | tr -d ' ')
plain=$(jq -c . "$BODY")
fetch -H 'Accept-Encoding: gzip' "$bundle"
expect_eq "gzip: Content-Encoding" gzip "$(header Content-Encoding)"
gz_size=$(wc -c <"$BODY" | tr -d ' ')
if [ "$gz_size" -lt "$plain_size" ]; then pass "gzip: smaller ($gz_size < $plain_size bytes)"; else fail "gzip: smaller" "$gz_size vs $plain_size"; fi
expect_eq "gzip: decompresses to the same document" "$plain" "$(gzip -dc <"$BODY" | jq -c .)"
gz_etag=$(header ETag)
fetch -H 'Accept-Encoding: gzip' -H "If-None-Match: $gz_etag" "$bundle"
expect_eq "gzip: 304 on the gzip ETag" 304 "$STATUS"
fetch -H 'Accept-Encoding: gzip;q=0, identity' "$bundle"
expect_eq "gzip: q=0 refuses it" "" "$(header Content-Encoding)"

fetch -I "$url"
expect_eq "HEAD: 200" 200 "$STATUS"
expect_match "HEAD: same ETag as GET" "^$etag\$" "$(header ETag)"
# curl -I cannot show whether bytes follow the headers; a raw socket can.
head_tail=$(python3 - "${BASE_URL#http://}" <<'PY'
import socket, sys
host, port = sys.argv[1].split(":")
with socket.create_connection((host, int(port)), timeout=5) as s:
    s.sendall(b"HEAD /v1/templates/pageNotAvailable HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    data = b""
    while chunk := s.recv(65536):
        data += chunk
head, _, rest = data.partition(b"\r\n\r\n")
print(f"{len(rest)} bytes after headers, content-length present: {b'content-length' in head.lower()}")
PY
)
expect_eq "HEAD: no body on the wire" "0 bytes after headers, content-length present: True" "$head_tail"
for path in /v1/templates /healthz /readyz /openapi.yaml; do
    fetch -I "$BASE_URL$path"
    expect_eq "HEAD $path: 200" 200 "$STATUS"
done

reuse=$(curl -sv -o /dev/null -o /dev/null "$url" "$BASE_URL/v1/templates/loading" 2>&1)
expect_match "keep-alive: curl reuses the connection" 'Re-using existing connection' "$reuse"
if printf '%s' "$reuse" | grep -qi '^< connection: close'; then fail "keep-alive: no Connection: close"; else pass "keep-alive: no Connection: close"; fi

# Reused response objects: each pre-rendered answer is one of a few libmicrohttpd responses lent
# to one connection at a time and given back when it completes. 8 keep-alive connections × 50
# pipelined requests at once, across 200/304/gzip answers: every answer must carry the id of its
# own request, and the same ETag and body as a lone request. An id as long as the one a lent
# object carries is written over it in place, another length replaces the header: clients 0-2
# send ids of one length, 3-5 of varying lengths, and 6-7 none, whose generated ids must all be
# distinct.
lend_check=$(python3 - "${BASE_URL#http://}" "$etag" <<'PY'
import socket, sys, threading
host, port = sys.argv[1].split(":")
etag = sys.argv[2]
kinds = [
    ("/v1/templates/pageNotAvailable?locale=es", ""),
    ("/v1/templates/pageNotAvailable?locale=es", f"If-None-Match: {etag}\r\n"),
    ("/v1/templates?locale=fr&platform=web", "Accept-Encoding: gzip\r\n"),
]
problems, answers, generated = [], {}, []
lock = threading.Lock()

def read_response(stream):
    status = stream.readline()
    headers = {}
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    body = stream.read(int(headers.get("content-length", "0")))
    return status.split()[1].decode(), headers, body

def client(number):
    if number < 3:
        ids = [f"lend-{number}-{i:02d}" for i in range(50)]
    elif number < 6:
        ids = [f"lend-{number}-{'x' * (i % 4)}{i}" for i in range(50)]
    else:
        ids = [None] * 50
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"".join(
            f"GET {kinds[i % 3][0]} HTTP/1.1\r\nHost: t\r\n"
            f"{f'X-Request-ID: {rid}' + chr(13) + chr(10) if rid else ''}{kinds[i % 3][1]}\r\n".encode()
            for i, rid in enumerate(ids)))
        stream = s.makefile("rb")
        for i, rid in enumerate(ids):
            status, headers, body = read_response(stream)
            with lock:
                if rid is None:
                    generated.append(headers.get("x-request-id"))
                elif headers.get("x-request-id") != rid:
                    problems.append(f"{rid} answered with {headers.get('x-request-id')}")
                seen = answers.setdefault(i % 3, (status, headers.get("etag"), body))
                if seen != (status, headers.get("etag"), body):
                    problems.append(f"{rid}: {status} {headers.get('etag')} differs from {seen[0]} {seen[1]}")

threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
for t in threads: t.start()
for t in threads: t.join()
if len(set(generated)) != 100 or None in generated:
    problems.append(f"{len(set(generated))} distinct generated ids in 100 answers")
statuses = sorted(answers[k][0] for k in answers)
print("; ".join(problems[:3]) if problems else f"400 answers, own ids, statuses {' '.join(statuses)}")
PY
)
expect_eq "reused responses: each answer carries its own request's id" "400 answers, own ids, statuses 200 200 304" "$lend_check"

# Headers are read from the connection when a handler asks: a repeated field is still joined.
fetch -H 'If-None-Match: "0000000000000000"' -H "If-None-Match: $etag" "$url"
expect_eq "304: If-None-Match sent twice is one list" 304 "$STATUS"

# Remembered answers (--memo-entries, on by default): a repeated request is answered from the
# memo, keyed by method, URL and the negotiation headers. Alternating those headers on one URL
# must never serve another request's answer.
memo_url="$BASE_URL/v1/templates/connectionRefused?platform=ios"
for round in 1 2; do
    fetch -H 'Accept-Language: de' "$memo_url"
    expect_eq "memo round $round: Accept-Language de" de "$(header Content-Language)"
    fetch -H 'Accept-Language: fr' "$memo_url"
    expect_eq "memo round $round: Accept-Language fr on the same URL" fr "$(header Content-Language)"
    fetch -H 'Accept-Language: fr' -H 'Accept-Encoding: gzip' "$memo_url"
    expect_eq "memo round $round: gzip when accepted" gzip "$(header Content-Encoding)"
    memo_gzip_etag=$(header ETag)
    fetch -H 'Accept-Language: fr' "$memo_url"
    expect_eq "memo round $round: identity when not" "" "$(header Content-Encoding)"
    fetch -H 'Accept-Language: fr' -H 'Accept-Encoding: gzip' -H "If-None-Match: $memo_gzip_etag" "$memo_url"
    expect_eq "memo round $round: 304 for the current ETag" 304 "$STATUS"
    fetch -H 'Accept-Language: fr' -H 'Accept-Encoding: gzip' -H 'If-None-Match: "0000000000000000"' "$memo_url"
    expect_eq "memo round $round: 200 for a stale ETag" 200 "$STATUS"
done
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"
memo_body=$(jq -c . "$BODY")
fetch "$BASE_URL/v1/templates/connectionRefused?platform=android&locale=ja"
expect_eq "memo: the query in another order is the same answer" "$memo_body" "$(jq -c . "$BODY")"
fetch -H 'X-Request-ID: memo-check-1' "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"
expect_eq "memo: a remembered answer carries the request's own X-Request-ID" memo-check-1 "$(header X-Request-ID)"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"
memo_first_id=$(header X-Request-ID)
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"
if [ -n "$memo_first_id" ] && [ "$memo_first_id" != "$(header X-Request-ID)" ]; then
    pass "memo: generated ids differ between remembered answers"
else
    fail "memo: generated ids differ between remembered answers" "$memo_first_id twice"
fi
fetch -I "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"
expect_eq "memo: HEAD after GET on the same URL" 200 "$STATUS"
memo_count() { curl -s "$BASE_URL/metrics" | awk '$1 == "http_memo_entries" { printf "%.0f", $2 }'; }
memo_count_before=$(memo_count)
for provider in BankID Itsme BankID; do
    fetch "$BASE_URL/v1/templates/verifyIdentity?locale=en&param.provider=$provider"
    expect_match "memo: param.provider=$provider is the one filled in" "$provider" "$(jq -c . "$BODY")"
done
# Answers with placeholder values are built per request, never remembered: their keys would be
# as many as clients care to send.
expect_eq "memo: answers with param.* values are not remembered" "$memo_count_before" "$(memo_count)"

# Remembered answers are still counted: five more requests, five more in http_requests_total.
memo_series='http_requests_total{route="/v1/templates/{id}",method="GET",status="200"}'
memo_before=$(curl -s "$BASE_URL/metrics" | grep -F "$memo_series" | awk '{ print $2 }')
for _ in 1 2 3 4 5; do curl -s -o /dev/null "$BASE_URL/v1/templates/connectionRefused?locale=ja&platform=android"; done
memo_after=$(curl -s "$BASE_URL/metrics" | grep -F "$memo_series" | awk '{ print $2 }')
expect_eq "memo: remembered answers are counted in http_requests_total" 5 "$((${memo_after%.*} - ${memo_before%.*}))"
