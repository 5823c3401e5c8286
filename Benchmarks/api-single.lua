-- wrk script of `Benchmarks/run api`: POST /v1/notifications, one notification per request, each to a different
-- token (a per-thread random prefix and a counter). API_KEY (environment): the bearer secret. done() prints
-- `bench_…` lines for the driver: completed requests, non-2xx answers, socket errors, latency percentiles in µs.
wrk.method = "POST"
wrk.path = "/v1/notifications"
wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("API_KEY"), "API_KEY is not set")
wrk.headers["Content-Type"] = "application/json"

local threads = {}
local counter = 0
local prefix

function setup(thread)
  thread:set("index", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() * 1000 + index)
  local digits = {}
  for i = 1, 6 do digits[i] = string.format("%08x", math.random(0, 0x7fffffff)) end
  prefix = table.concat(digits)
end

function request()
  counter = counter + 1
  local body = string.format('{"token": "%s%016x", "payload": {"aps": {"alert": "hi"}}}', prefix, counter)
  return wrk.format(nil, nil, nil, body)
end

dofile("Benchmarks/api-report.lua")
