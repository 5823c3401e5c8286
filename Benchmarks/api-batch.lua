-- wrk script of `Benchmarks/run api`: POST /v1/notifications/batch with the body in BODY_FILE (built by the driver:
-- 10,000 notifications), bearer secret in API_KEY. done() prints `bench_…` lines like api-single.lua.
wrk.method = "POST"
wrk.path = "/v1/notifications/batch"
wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("API_KEY"), "API_KEY is not set")
wrk.headers["Content-Type"] = "application/json"
local file = assert(io.open(assert(os.getenv("BODY_FILE"), "BODY_FILE is not set"), "rb"))
wrk.body = file:read("*a")
file:close()

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("bench_requests %d\n", summary.requests))
  io.write(string.format("bench_duration_us %d\n", summary.duration))
  io.write(string.format("bench_non2xx %d\n", e.status))
  io.write(string.format("bench_socket_errors %d\n", e.connect + e.read + e.write + e.timeout))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("bench_p%s_us %d\n", tostring(p), latency:percentile(p)))
  end
  io.write(string.format("bench_max_us %d\n", latency.max))
end
