import Foundation
import HTTPServer
import Metrics

/// Answers the HTTP API: `GET /healthz`, `GET /readyz`, `GET /metrics` (no key needed); JSON 404 for other
/// paths, 405 with `Allow` for a known path with another method.
struct APIRouter: Sendable {
    let readiness: Readiness
    let metrics: APNsdMetrics

    /// Each path and the methods it answers.
    static let routes: [String: [String]] = ["/healthz": ["GET"], "/readyz": ["GET"], "/metrics": ["GET"]]

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let start = ContinuousClock.now
        let (route, response) = await answer(request)
        let elapsed = ContinuousClock.now - start
        metrics.httpRequest(route: route, code: response.status,
                            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return response
    }

    /// The route template the request matched ("unmatched" when none) and its answer.
    private func answer(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        guard let methods = Self.routes[request.path] else {
            return ("unmatched", JSONResponse.error(404, code: "not_found", message: "no route for \(request.path)"))
        }
        guard methods.contains(request.method) else {
            let allowed = methods.joined(separator: ", ")
            return (request.path, JSONResponse.error(405, code: "method_not_allowed",
                                                     message: "\(request.path) allows \(allowed), not \(request.method)",
                                                     headers: [("Allow", allowed)]))
        }
        switch request.path {
        case "/healthz":
            return (request.path, JSONResponse.make(200, #"{"status": "ok"}"#))
        case "/readyz":
            let checks = await readiness.checks()
            let ready = checks.allSatisfy { $0.1 == "ok" }
            return (request.path, JSONResponse.make(ready ? 200 : 503,
                                                    #"{"status": "\#(ready ? "ready" : "unready")", "checks": \#(JSONResponse.object(checks))}"#))
        default:
            return (request.path, HTTPResponse(status: 200, contentType: PrometheusText.contentType, text: metrics.render()))
        }
    }
}
