import Events
import HTTPServer
import Intake
import QueueModel

extension API {
    /// The longest `wait` of `GET /v1/events`, in seconds.
    static let maximumEventWait = 30

    /// `GET /v1/events?after=CURSOR&wait=SECONDS&limit=`: deactivations and failed deliveries after the cursor;
    /// when there are none, waits up to `wait` seconds for some (the connection is suspended, no thread held), if a
    /// long-poll slot is free (`LongPollBudget`); if none is, answers at once with `Retry-After`.
    /// `GET /v1/events?last=N`: the newest N events at once, and the cursor to follow them with.
    func listEvents(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["after", "wait", "limit", "last"], request)
        if let text = request.query("last") {
            guard request.query("after") == nil, request.query("wait") == nil, request.query("limit") == nil else {
                throw .invalid("last takes the newest events at once: ask without after, wait or limit", field: "last")
            }
            guard let count = Int(text), (1...1000).contains(count) else {
                throw .invalid("last must be a whole number from 1 to 1000", field: "last")
            }
            do {
                return JSONResponse.make(200, try await events.latest(limit: count).json)
            } catch {
                throw .store(error)
            }
        }
        var after: EventID?
        if let text = request.query("after") {
            guard let cursor = EventID(cursor: text) else {
                throw .invalid("after must be a cursor from an earlier page's next", field: "after")
            }
            after = cursor
        }
        var wait = 0
        if let text = request.query("wait") {
            guard let seconds = Int(text), (0...Self.maximumEventWait).contains(seconds) else {
                throw .invalid(
                    "wait must be a whole number of seconds from 0 to \(Self.maximumEventWait)", field: "wait")
            }
            wait = seconds
        }
        let limit = try Self.limit(request, default: 100, maximum: 1000)
        // Beyond the long-poll slots: what there is now, and when to ask again.
        let key = request.key?.name ?? ""
        let waits = wait > 0 && longPolls.take(key)
        defer { if waits { longPolls.release(key) } }
        let headers = wait > 0 && !waits ? [("Retry-After", "1")] : []
        do {
            let page = try await events.events(after: after, limit: limit, wait: .seconds(waits ? wait : 0))
            return JSONResponse.make(200, page.json, headers: headers)
        } catch {
            throw .store(error)
        }
    }
}
