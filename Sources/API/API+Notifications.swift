import APNs
import Foundation
import HTTPServer
import Intake
import ProviderAuth
import QueueModel

extension API {
    /// `POST /v1/notifications`: one notification (to a token, tokens, a user or users) ahead of bulk work.
    func postNotification(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let key = try idempotency(request)
        let answer = { (done: Enqueued) in #"{"id":"\#(done.ids[0])","deliveries":\#(done.deliveries[0])}"# }
        if let replay = try await replay(key, answer) { return replay }
        var body = try JSONBody.parse(request.http.body, contentType: request.http.headers["Content-Type"])
        let spec = try NotificationFields.notification(
            &body, defaultTopic: settings.defaultTopic, routes: settings.topicRoutes)
        let done = try await enqueue(EnqueueRequest(specs: [spec], idempotency: key), source: "notifications")
        return accepted(done, json: answer(done))
    }

    /// `POST /v1/notifications/batch`: up to 10,000 notifications, all or none.
    func postBatch(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let key = try idempotency(request)
        let answer = { (done: Enqueued) in #"{"ids":\#(JSONResponse.array(done.ids.map { "\"\($0)\"" }))}"# }
        if let replay = try await replay(key, answer) { return replay }
        let specs = try Self.batchRequestSpecs(
            body: request.http.body, contentType: request.http.headers["Content-Type"],
            defaultTopic: settings.defaultTopic, routes: settings.topicRoutes)
        let done = try await enqueue(EnqueueRequest(specs: specs, idempotency: key), source: "batch")
        return accepted(done, json: answer(done))
    }

    /// A batch body this large or larger is validated item by item without keeping the specs, which the store then
    /// makes again one at a time as it writes them (`CampaignSpecs`): held all at once, a batch's specs (each a copy
    /// of its payload, a heap string per token) take about 1.5 times the body besides it. Smaller ones keep theirs.
    static let madeAgainBytes = 8 << 20

    /// The batch's specs as the route enqueues them: validated here (every refusal is the same as `batchItems`'),
    /// kept as values, or for a body of `madeAgainBytes` or more made again from the parsed body when read.
    static func batchRequestSpecs(
        body bytes: [UInt8], contentType: String?, defaultTopic: String?, routes: TopicRoutes?, now: Date = Date()
    ) throws(APIError) -> CampaignSpecs {
        guard bytes.count >= madeAgainBytes else {
            return CampaignSpecs(
                try batchItems(body: bytes, contentType: contentType, defaultTopic: defaultTopic, routes: routes))
        }
        let (tree, items) = try batchItemNodes(body: bytes, contentType: contentType)
        for (index, item) in items.enumerated() {
            _ = try batchItem(tree, item, index: index, defaultTopic: defaultTopic, routes: routes, now: now)
        }
        return CampaignSpecs(singleSendsDueNow: items.count) { index in
            do {
                return try batchItem(
                    tree, items[index], index: index, defaultTopic: defaultTopic, routes: routes, now: now)
            } catch {
                preconditionFailure("batch item \(index) was valid when read, and is refused made again: \(error)")
            }
        }
    }

    /// `POST /v1/notifications/batch`'s body parsed and validated into one spec per item, as the route does it (public
    /// so that apnsd-bench times exactly this); a refusal is the route's `APIError`.
    public static func batchSpecs(
        body: [UInt8], contentType: String?, defaultTopic: String?, routes: TopicRoutes? = nil
    ) throws -> [CampaignSpec] {
        try batchItems(body: body, contentType: contentType, defaultTopic: defaultTopic, routes: routes)
    }

    /// `batchSpecs` with the route's typed error.
    static func batchItems(body bytes: [UInt8], contentType: String?, defaultTopic: String?, routes: TopicRoutes?)
        throws(APIError) -> [CampaignSpec]
    {
        let (tree, items) = try batchItemNodes(body: bytes, contentType: contentType)
        var specs: [CampaignSpec] = []
        specs.reserveCapacity(items.count)
        let now = Date()
        for (index, item) in items.enumerated() {
            specs.append(try batchItem(tree, item, index: index, defaultTopic: defaultTopic, routes: routes, now: now))
        }
        return specs
    }

    /// The batch body parsed, and its items' nodes: `notifications`, 1 to 10,000 of them, and nothing else.
    private static func batchItemNodes(body bytes: [UInt8], contentType: String?) throws(APIError) -> (
        tree: JSONTree, items: [Int]
    ) {
        var body = try JSONBody.parse(bytes, contentType: contentType)
        guard let items = try body.array("notifications") else {
            throw .invalid("notifications is required", field: "notifications")
        }
        try body.finish()
        guard items.count > 0 else { throw .invalid("notifications must not be empty", field: "notifications") }
        guard items.count <= NotificationFields.maximumRecipients else {
            throw .invalid(
                "\(items.count) notifications; at most \(NotificationFields.maximumRecipients) per batch",
                field: "notifications")
        }
        return (body.tree, Array(items))
    }

    /// Item `index` of a batch (its node `item`) as a spec; a refusal names its index.
    private static func batchItem(
        _ tree: JSONTree, _ item: Int, index: Int, defaultTopic: String?, routes: TopicRoutes?, now: Date
    ) throws(APIError) -> CampaignSpec {
        do {
            var itemBody = try JSONBody(tree, node: item)
            return try NotificationFields.notification(&itemBody, defaultTopic: defaultTopic, routes: routes, now: now)
        } catch {
            var error = error
            error.index = index
            error.message = "notifications[\(index)]: \(error.message)"
            throw error
        }
    }

    /// `GET /v1/notifications/{id}`: status, counts and the first 1,000 deliveries.
    func getNotification(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        do {
            let campaign = try await store.campaign(id)
            let deliveries = try await store.log(LogFilter(campaign: id), after: nil, limit: 1000)
            let json = JSONLine([
                "id": .string(id.description), "kind": .string("\(campaign.kind)"),
                "createdAt": .date(campaign.createdAt),
                "status": .string("\(campaign.status)"), "counts": .raw(Self.counts(campaign)),
                "deliveries": .raw(JSONResponse.array(deliveries.map(\.json.description))),
            ])
            return JSONResponse.make(200, json.description)
        } catch {
            throw .store(error)
        }
    }

    /// `DELETE /v1/notifications/{id}`: only a notification (a campaign of kind single); a bulk campaign is 404
    /// here, since cancelling one needs the admin scope of `POST /v1/campaigns/{id}/cancel`.
    func cancelNotification(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        let campaign: Campaign
        do { campaign = try await store.campaign(id) } catch { throw .store(error) }
        guard campaign.kind == .single else { throw .notFound("no notification \(id) (it is a bulk campaign)") }
        return try await cancel(request)
    }

    /// `POST /v1/campaigns/{id}/cancel`, and a notification's cancel once checked: 409 when it already finished.
    func cancel(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        let report: CancelReport
        do {
            report = try await store.cancel(id, staleAfter: settings.lease, waitUpTo: settings.lease.seconds)
        } catch {
            throw .store(error)
        }
        if report.wasFinished {
            throw APIError(409, "already_finished", "\(id) is already \(report.campaign.status): nothing to cancel")
        }
        return JSONResponse.make(200, #"{"cancelled":\#(report.cancelled),"inFlight":\#(report.inFlight)}"#)
    }

    /// Counts by delivery status, as a JSON object.
    static func counts(_ campaign: Campaign) -> String {
        let c = campaign.counters
        return JSONLine([
            "pending": .int(c.pending), "accepted": .int(c.accepted), "unregistered": .int(c.unregistered),
            "rejected": .int(c.rejected), "failed": .int(c.failed), "cancelled": .int(c.cancelled),
        ]).description
    }

    /// The `{id}` path parameter.
    func campaignID(_ request: APIRequest) throws(APIError) -> CampaignID {
        let text = request.parameters["id"] ?? ""
        guard CanonicalNumber.isCanonical(text), let id = CampaignID(text) else {
            throw .invalid(
                "'\(text)' is not an id (a positive whole number, digits only, no leading zero)", field: "id")
        }
        return id
    }

    /// The request's `Idempotency-Key`, scoped to its API key (by the key's id, never its name: a key created again
    /// under a revoked key's name has none of its keys), with the hash of its body.
    func idempotency(_ request: APIRequest) throws(APIError) -> IdempotencyKey? {
        guard let key = request.http.headers["Idempotency-Key"] else { return nil }
        if let problem = IdempotencyKey.validate(key) { throw .invalid(problem, field: "Idempotency-Key") }
        guard let owner = request.key else {
            throw APIError(401, "unauthorized", "an Idempotency-Key needs an API key (Authorization: Bearer SECRET)")
        }
        return IdempotencyKey(
            scope: .apiKey(id: owner.id), key: key, requestHash: SHA256.hex(request.http.body))
    }

    /// Writes through the grouping queue; counts what was created under `source` (the route, as the metric's label).
    func enqueue(_ request: EnqueueRequest, source: String) async throws(APIError) -> Enqueued {
        switch await enqueueQueue.submit(request) {
        case .success(let done):
            if !done.isReplay { metrics.notificationsEnqueued.increment(source, by: Double(done.ids.count)) }
            return done
        case .failure(let error):
            throw .store(error)
        }
    }

    /// The first answer again (`answer` of what it created) when `key` is remembered with this body, looked up before
    /// the body is read: a retry gets it even where validation would now refuse the body (an `at` gone by, a topic
    /// reloaded away). The same key with another body is 422 here too.
    func replay(_ key: IdempotencyKey?, _ answer: (Enqueued) -> String) async throws(APIError) -> HTTPResponse? {
        guard let key else { return nil }
        let earlier: Enqueued?
        do { earlier = try await store.idempotentResult(key, now: Date()) } catch { throw .store(error) }
        return earlier.map { accepted($0, json: answer($0)) }
    }

    /// 202 for new work; 200 with `Idempotent-Replayed: true` for a replay.
    func accepted(_ done: Enqueued, json: String, status: Int = 202) -> HTTPResponse {
        done.isReplay
            ? JSONResponse.make(200, json, headers: [("Idempotent-Replayed", "true")]) : JSONResponse.make(status, json)
    }
}
