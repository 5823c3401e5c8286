import HTTPServer
import Metrics

/// What `apnsd worker --worker-listen` serves: `GET /metrics`, `/healthz` and `/readyz`, answered as `apnsd
/// serve` answers them (no API key; nothing else is served).
public struct ProbeEndpoints: Sendable {
    let metrics: APNsdMetrics
    let readiness: @Sendable () async -> [(String, String)]
    let refreshMetrics: @Sendable () async -> Void

    /// `readiness` gives `/readyz`'s checks; `refreshMetrics` updates the sampled gauges before each render.
    public init(
        metrics: APNsdMetrics, readiness: @escaping @Sendable () async -> [(String, String)],
        refreshMetrics: @escaping @Sendable () async -> Void
    ) {
        self.metrics = metrics
        self.readiness = readiness
        self.refreshMetrics = refreshMetrics
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let known = ["/healthz", "/readyz", "/metrics"]
        guard known.contains(request.path) else {
            return APIError(404, "not_found", "only GET /metrics, /healthz and /readyz are served here").response
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return APIError(405, "method_not_allowed", "\(request.method) is not allowed on \(request.path)").response
        }
        switch request.path {
        case "/healthz": return JSONResponse.make(200, #"{"status":"ok"}"#)
        case "/readyz": return API.ready(await readiness())
        default: return await API.metricsText(metrics, refresh: refreshMetrics)
        }
    }
}
