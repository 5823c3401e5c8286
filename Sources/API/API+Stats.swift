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
        let campaign = try request.query("campaign").map { (text: String) throws(APIError) -> CampaignID in
            guard let id = CampaignID(text) else { throw .invalid("campaign must be an id", field: "campaign") }
            return id
        }
        do {
            return JSONResponse.make(
                200, try await store.stats(since: since, campaign: campaign, now: now).json.description)
        } catch {
            throw .store(error)
        }
    }
}
