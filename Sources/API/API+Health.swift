import HTTPServer
import Metrics

extension API {
    /// `GET /healthz`: 200 while the process runs.
    func health() -> HTTPResponse {
        JSONResponse.make(200, #"{"status":"ok"}"#)
    }

    /// `GET /readyz`: 200 when every check is "ok", else 503 with each check's reason.
    func ready() async -> HTTPResponse {
        let checks = await readiness()
        let ready = checks.allSatisfy { $0.1 == "ok" }
        return JSONResponse.make(ready ? 200 : 503,
                                 #"{"status":"\#(ready ? "ready" : "unready")","checks":\#(JSONResponse.object(checks))}"#)
    }

    /// `GET /metrics`: the Prometheus text format, its sampled gauges refreshed first.
    func metricsText() async -> HTTPResponse {
        await refreshMetrics()
        return HTTPResponse(status: 200, contentType: PrometheusText.contentType, text: metrics.render())
    }
}
