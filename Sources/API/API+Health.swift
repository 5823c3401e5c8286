import HTTPServer
import Logging
import Metrics

extension API {
    /// `GET /healthz`: 200 while the process runs.
    func health() -> HTTPResponse {
        JSONResponse.make(200, #"{"status":"ok"}"#)
    }

    /// `GET /readyz`: whether this process can do its job now: 200 when every check is "ok", else 503 with each
    /// check's reason (the database; the worker, where one runs in the process).
    func ready() async -> HTTPResponse {
        Self.ready(await readiness())
    }

    /// `GET /v1/status` (scope read): the rest of what an operator looks at (`StatusReport`).
    func getStatus() async -> HTTPResponse {
        JSONResponse.make(200, await status())
    }

    /// `GET /metrics`: the Prometheus text format, its sampled gauges refreshed first.
    func metricsText() async -> HTTPResponse {
        await Self.metricsText(metrics, refresh: refreshMetrics)
    }

    /// `/readyz`'s answer for `checks`.
    static func ready(_ checks: [(String, String)]) -> HTTPResponse {
        let ready = checks.allSatisfy { $0.1 == "ok" }
        return JSONResponse.make(
            ready ? 200 : 503,
            #"{"status":"\#(ready ? "ready" : "unready")","checks":\#(JSONResponse.object(checks))}"#)
    }

    /// `/metrics`'s answer: `metrics` rendered after `refresh`.
    static func metricsText(_ metrics: APNsdMetrics, refresh: @Sendable () async -> Void) async -> HTTPResponse {
        await refresh()
        return HTTPResponse(status: 200, contentType: PrometheusText.contentType, text: metrics.render())
    }
}
