import Foundation
import HTTPServer
import Intake
import Logging
import QueueModel

extension API {
    /// `POST /v1/campaigns`: a bulk campaign, now or `at` a time; with `"dryRun": true`, only how many devices it
    /// would reach, by environment (nothing written, no idempotency record).
    func postCampaign(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let key = try idempotency(request)
        let answer = { (done: Enqueued) in #"{"id":"\#(done.ids[0])"}"# }
        if let replay = try await replay(key, answer) { return replay }
        var body = try JSONBody.parse(request.http.body, contentType: request.http.headers["Content-Type"])
        let (spec, dryRun) = try NotificationFields.campaign(
            &body, defaultTopic: settings.defaultTopic, routes: settings.topicRoutes)
        if dryRun {
            let count: AudienceCount
            do { count = try await store.audienceCount(spec) } catch { throw .store(error) }
            return JSONResponse.make(200, count.dryRunJSON)
        }
        let done = try await enqueue(EnqueueRequest(specs: [spec], idempotency: key), source: "campaigns")
        return accepted(done, json: answer(done), status: 201)
    }

    /// `GET /v1/campaigns?status=&kind=&limit=&after=`: newest first; bulk campaigns unless `kind=single`.
    func listCampaigns(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["status", "kind", "limit", "after"], request)
        let kind = try Self.enumQuery(request, "kind", CampaignKind.self) ?? .bulk
        let status = try Self.enumQuery(request, "status", CampaignStatus.self)
        let limit = try Self.limit(request, default: 100, maximum: 1000)
        let after = try Self.cursor(request).map { CampaignID($0) }
        do {
            let page = try await store.campaigns(kind: kind, status: status, before: after, limit: limit)
            return JSONResponse.make(
                200,
                Self.page(
                    "campaigns", page.map(\.json.description),
                    next: page.count == limit ? page.last?.id.description : nil))
        } catch {
            throw .store(error)
        }
    }

    /// `GET /v1/campaigns/{id}`: the campaign, its counts by delivery status, its rate now and an ETA, and why it
    /// waits (`CampaignWaiting`; no ETA then).
    func getCampaign(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        let campaign: Campaign
        let workers: [WorkerRecord]
        do {
            campaign = try await store.campaign(id)
            workers = campaign.status == .running ? try await store.workers() : []
        } catch { throw .store(error) }
        let now = Date()
        let (rate, eta) = await rates.rate(of: campaign, now: now)
        let waiting = CampaignWaiting.reason(
            for: campaign, workers: workers,
            credential: settings.topicRoutes?.credential(for: campaign.content.bundleID), now: now,
            lease: settings.lease)
        let json = campaign.json.adding([
            ("counts", .raw(Self.counts(campaign))), ("ratePerSecond", .raw(String(format: "%.1f", rate))),
            ("eta", .date(waiting == nil ? eta.map { now.addingTimeInterval($0) } : nil)),
            ("waiting", .raw(waiting.map(StatusReport.waiting(json:)) ?? "null")),
        ])
        return JSONResponse.make(200, json.description)
    }

    /// `POST /v1/campaigns/{id}/retry`: the failed deliveries pending again; 409 when the campaign cannot be retried.
    func retry(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        do {
            let count = try await store.requeue(id, status: .failed, now: Date())
            return JSONResponse.make(200, #"{"requeued":\#(count)}"#)
        } catch .invalidCampaign(let why) {
            throw APIError(409, "conflict", why)
        } catch .notADraft(let id, let status) {
            throw APIError(409, "conflict", "campaign \(id) is a \(status) and cannot be retried")
        } catch {
            throw .store(error)
        }
    }

    /// `POST /v1/campaigns/{id}/pause` and `/resume`: the campaign after the change; 409 for a single send or a
    /// campaign that finished.
    func pause(_ request: APIRequest, resume: Bool) async throws(APIError) -> HTTPResponse {
        let id = try campaignID(request)
        do {
            let campaign =
                resume
                ? try await store.resumeCampaign(id, now: Date()).campaign
                : try await store.pauseCampaign(id, now: Date()).campaign
            return JSONResponse.make(200, campaign.json.description)
        } catch .invalidCampaign(let why) {
            throw APIError(409, "conflict", why)
        } catch {
            throw .store(error)
        }
    }

    /// `{"<name>": [items], "next": cursor-or-null}`.
    static func page(_ name: String, _ items: [String], next: String?) -> String {
        "{\(JSONText.quote(name)):\(JSONResponse.array(items)),\"next\":\(next.map(JSONText.quote) ?? "null")}"
    }
}
