import APNs
import HTTPServer
import Intake
import QueueModel

extension API {
    /// `GET /v1/deliveries?campaign=&notification=&token=&user=&status=&reason=&since=&until=&limit=&after=`:
    /// newest first, paged by delivery id (stable while the worker writes).
    func listDeliveries(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(
            ["campaign", "notification", "token", "user", "status", "reason", "since", "until", "limit", "after"],
            request)
        var filter = LogFilter()
        var campaigns: [CampaignID] = []
        for name in ["campaign", "notification"] {
            if let id = try Self.id(request, name) { campaigns.append(id) }
        }
        if campaigns.count == 2, campaigns[0] != campaigns[1] {
            throw .invalid("campaign and notification name the same thing; give one", field: "notification")
        }
        filter.campaign = campaigns.first
        if let token = request.query("token") { filter.token = try NotificationFields.token(token, field: "token") }
        filter.user = try request.query("user").map { (text: String) throws(APIError) in
            try NotificationFields.user(text, field: "user")
        }
        filter.status = try Self.enumQuery(request, "status", DeliveryStatus.self)
        if let reason = request.query("reason") {
            guard !reason.isEmpty, reason.utf8.count <= 64, reason.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw .invalid("reason must be an APNs reason such as Unregistered", field: "reason")
            }
            filter.reason = Reason(rawValue: reason)
        }
        filter.since = try Self.time(request, "since")
        filter.until = try Self.time(request, "until")
        let limit = try Self.limit(request, default: 100, maximum: 1000)
        let before = try Self.cursor(request).map { DeliveryID($0) }
        do {
            let page = try await store.recentLog(filter, before: before, limit: limit)
            return JSONResponse.make(
                200,
                Self.page(
                    "deliveries", page.map(\.json.description),
                    next: page.count == limit ? page.last?.id.description : nil))
        } catch {
            throw .store(error)
        }
    }
}
