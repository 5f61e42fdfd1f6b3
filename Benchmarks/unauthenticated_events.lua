-- wrk script: anonymous POST /v1/events as anyone on the internet could send them, each request
-- one new event (a fresh id, so none is a duplicate: every one is stored, fsync and all).
-- docs/security.md measures one instance with it:
--   wrk -t2 -c32 -d10s -s Benchmarks/unauthenticated_events.lua http://127.0.0.1:8080
-- Prints the events the server accepted, counted from its answers.

-- Per thread (globals of the thread's own Lua state, so that done() can read them).
accepted = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() * 1000 + id)
  wrk.method = "POST"
  wrk.path = "/v1/events"
  wrk.headers["Content-Type"] = "application/json"
end

local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff),
    math.random(0, 0xfff), math.random(0x8000, 0xbfff), math.random(0, 0xffffffffffff))
end

function request()
  local body = string.format('{"id":"%s","type":"displayed","templateId":"connectionRefused","revision":1,'
    .. '"locale":"en","platform":"web","appVersion":"1.0.0","occurredAt":"%s"}',
    uuid(), os.date("!%Y-%m-%dT%H:%M:%SZ"))
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  if status == 202 and string.find(body, '"accepted":1', 1, true) then
    accepted = accepted + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("accepted")
  end
  io.write(string.format("events accepted: %d (%.0f/s), non-2xx answers: %d\n", total,
    total / (summary.duration / 1e6), summary.errors.status))
end
