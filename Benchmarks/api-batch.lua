-- wrk script of `Benchmarks/run api`: POST /v1/notifications/batch with the body in BODY_FILE (built by the driver:
-- 10,000 notifications), bearer secret in API_KEY. done() (api-report.lua) prints the `bench_…` lines.
wrk.method = "POST"
wrk.path = "/v1/notifications/batch"
wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("API_KEY"), "API_KEY is not set")
wrk.headers["Content-Type"] = "application/json"
local file = assert(io.open(assert(os.getenv("BODY_FILE"), "BODY_FILE is not set"), "rb"))
wrk.body = file:read("*a")
file:close()

dofile("Benchmarks/api-report.lua")
