import HTTPServer
import Logging
import Metrics

extension API {
    /// `GET /healthz`: 200 while the process runs.
    func health() -> HTTPResponse {
        JSONResponse.make(200, #"{"status":"ok"}"#)
    }

    /// `GET /readyz`: 200 when every check is "ok", else 503 with each check's reason; with a worker, each
    /// credential's state too (a paused credential alone does not make apnsd unready: the others send).
    func ready() async -> HTTPResponse {
        let checks = await readiness()
        let ready = checks.allSatisfy { $0.1 == "ok" }
        let states = credentials()
        let credentials =
            states.isEmpty
            ? ""
            : #","credentials":{"# + states.map { "\(JSONText.quote($0.name)):\($0.json)" }.joined(separator: ",") + "}"
        return JSONResponse.make(
            ready ? 200 : 503,
            #"{"status":"\#(ready ? "ready" : "unready")","checks":\#(JSONResponse.object(checks))\#(credentials)}"#)
    }

    /// `GET /metrics`: the Prometheus text format, its sampled gauges refreshed first.
    func metricsText() async -> HTTPResponse {
        await refreshMetrics()
        return HTTPResponse(status: 200, contentType: PrometheusText.contentType, text: metrics.render())
    }
}
