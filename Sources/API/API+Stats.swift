import Foundation
import HTTPServer
import Intake
import QueueModel

extension API {
    /// `GET /v1/stats?since=&campaign=`: what `apnsd stats --json` prints (since: default 1h).
    func getStats(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["since", "campaign"], request)
        let now = Date()
        let since = try Self.time(request, "since") ?? now.addingTimeInterval(-3600)
        guard since <= now else { throw .invalid("since must be in the past", field: "since") }
        let campaign = try Self.id(request, "campaign")
        do {
            return JSONResponse.make(
                200, try await store.stats(since: since, campaign: campaign, now: now).json.description)
        } catch {
            throw .store(error)
        }
    }
}

extension API {
    /// Most points a series answers (a day of minutes fits, with the partial steps at both ends); a longer window
    /// takes a longer step.
    static let maxSeriesPoints = 1500

    /// `GET /v1/stats/series?since=&step=&campaign=`: outcomes and requests per step (since: default 1h; step:
    /// default 60s, whole minutes), of everything or of one bulk campaign, from per-minute counters.
    func getStatsSeries(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["since", "step", "campaign"], request)
        let now = Date()
        let since = try Self.time(request, "since") ?? now.addingTimeInterval(-3600)
        guard since <= now else { throw .invalid("since must be in the past", field: "since") }
        var step = 60
        if let text = request.query("step") {
            guard let seconds = PastTime.duration(text), seconds >= 60, seconds % 60 == 0 else {
                throw .invalid(
                    "step must be whole minutes, at least 60s (60s, 5m, 1h): outcomes are counted per minute",
                    field: "step")
            }
            step = seconds
        }
        let points = OutcomeSeries.Window(since: since, step: step, now: now).count
        guard points <= Self.maxSeriesPoints else {
            throw .invalid(
                "since and step make \(points) points, more than \(Self.maxSeriesPoints): take a longer step",
                field: "step")
        }
        let campaign = try Self.id(request, "campaign")
        do {
            let series = try await store.outcomeSeries(since: since, step: step, campaign: campaign, now: now)
            return JSONResponse.make(200, series.json.description)
        } catch {
            throw .store(error)
        }
    }
}
