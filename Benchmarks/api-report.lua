-- The `bench_…` lines `Benchmarks/run api` reads from every wrk run (api-single.lua, api-batch.lua load it;
-- the driver runs wrk from the repository's root).
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
