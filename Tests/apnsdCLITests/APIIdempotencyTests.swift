import Foundation
import TestSupport
import Testing
import Threads

extension APIServe {
    /// `Idempotency-Key` on a real `apnsd serve`: a replay answers the first response and enqueues nothing, another
    /// body is 422, keys are scoped to the API key, and concurrent duplicates enqueue once.
    @Suite struct APIIdempotencyTests {
        @Test func replaysConflictsAndScopes() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try APIHarness(cli: cli)
            defer { api.stop() }
            let body = APIHarness.notification(CLI.token(1))

            let first = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(first.status == 202 && first.headers["idempotent-replayed"] == nil, "\(first.body)")
            let id = try #require(try APIHarness.object(first)["id"] as? String)
            let written = try api.written()

            let replay = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(
                replay.status == 200 && replay.headers["idempotent-replayed"] == "true",
                "\(replay.status) \(replay.headers)")
            #expect(
                try APIHarness.object(replay)["id"] as? String == id
                    && (try APIHarness.object(replay))["deliveries"] as? Int == 1)
            #expect(try api.written() == written, "a replay enqueued something")

            let other = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(CLI.token(2)),
                headers: ["Idempotency-Key: order-17"])
            #expect(
                try other.status == 422 && (try APIHarness.error(other))["code"] as? String == "idempotency_key_reused",
                "\(other.body)")
            #expect(try api.written() == written, "a 422 enqueued something")

            // The same key from another API key is its own request.
            let elsewhere = try api.call(
                "POST", "/v1/notifications", key: api.sender, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(elsewhere.status == 202 && elsewhere.headers["idempotent-replayed"] == nil, "\(elsewhere.body)")
            let elsewhereID = try APIHarness.object(elsewhere)["id"] as? String
            #expect(elsewhereID != nil && elsewhereID != id)
            let elsewhereAgain = try api.call(
                "POST", "/v1/notifications", key: api.sender, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(
                try elsewhereAgain.status == 200
                    && (try APIHarness.object(elsewhereAgain))["id"] as? String == elsewhereID)

            let longest = String(repeating: "k", count: 255)
            #expect(
                try api.call(
                    "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: \(longest)"]
                ).status == 202)
            #expect(
                try api.call(
                    "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: \(longest)"]
                ).status == 200)
            let spaced = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: two words"])
            #expect(try spaced.status == 400 && APIHarness.error(spaced)["field"] as? String == "Idempotency-Key")

            // Batches and campaigns replay the same way (a campaign's replay is 200, not 201).
            let batchBody =
                #"{"notifications":[\#(APIHarness.notification(CLI.token(3))),\#(APIHarness.notification(CLI.token(4)))]}"#
            let batch = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: batchBody,
                headers: ["Idempotency-Key: batch-1"])
            #expect(batch.status == 202)
            let batchAgain = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: batchBody,
                headers: ["Idempotency-Key: batch-1"])
            #expect(
                batchAgain.status == 200 && batchAgain.headers["idempotent-replayed"] == "true"
                    && batchAgain.body == batch.body, "\(batchAgain.body)")
            let campaignBody = #"{"payload":{"aps":{}},"audience":{"tokens":["\#(CLI.token(5))"]}}"#
            let campaign = try api.call(
                "POST", "/v1/campaigns", key: api.admin, json: campaignBody,
                headers: ["Idempotency-Key: cron-2026-12-01"])
            #expect(campaign.status == 201)
            let campaignAgain = try api.call(
                "POST", "/v1/campaigns", key: api.admin, json: campaignBody,
                headers: ["Idempotency-Key: cron-2026-12-01"])
            #expect(
                campaignAgain.status == 200 && campaignAgain.headers["idempotent-replayed"] == "true"
                    && campaignAgain.body == campaign.body)
            let campaigns =
                try APIHarness.object(try api.call("GET", "/v1/campaigns", key: api.admin))["campaigns"] as? [Any]
            #expect(campaigns?.count == 1, "the replayed campaign was created once")

            let log = try cli.run("log", "--json")
            #expect(
                log.lines.count == 5,
                "token 1 three times (two API keys, the 255-character key), tokens 3 and 4; campaign 5 is not expanded without a worker: \(log.stdout)"
            )
            #expect(log.lines.filter { $0.contains(CLI.token(1)) }.count == 3)
        }

        @Test func concurrentDuplicatesEnqueueOnce() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try APIHarness(cli: cli)
            defer { api.stop() }
            let before = try api.written()
            let body = APIHarness.notification(CLI.token(1))
            let answers = Locked([HTTPClient.Response?]())
            let (base, secret) = (api.base, api.backend)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let response = HTTPClient.request(
                    "POST", base + "/v1/notifications",
                    headers: [
                        "Authorization: Bearer \(secret)", "Content-Type: application/json",
                        "Idempotency-Key: same-for-all",
                    ], body: body)
                answers.withLock { $0.append(response) }
            }
            let responses = answers.withLock { $0 }.compactMap { $0 }
            #expect(responses.count == 8, "every request answered")
            #expect(responses.filter { $0.status == 202 }.count == 1, "\(responses.map(\.status))")
            #expect(
                responses.filter { $0.status == 200 && $0.headers["idempotent-replayed"] == "true" }.count == 7,
                "\(responses.map(\.status))")
            let ids = Set(
                responses.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
                    .compactMap { $0["id"] as? String })
            #expect(ids.count == 1, "one id for all: \(ids)")
            let after = try api.written()
            let counts = (before.first ?? "").split(separator: "|").compactMap { Int($0) }
            let nowCounts = (after.first ?? "").split(separator: "|").compactMap { Int($0) }
            #expect(
                counts.count == 4 && nowCounts == [counts[0] + 1, counts[1] + 1, counts[2], counts[3] + 1],
                "one notification, one delivery, one stored key (a single token needs no audience rows): \(before) → \(after)"
            )
            let log = try cli.run("log", "--json")
            #expect(log.lines.count == 1 && log.lines.first?.contains(ids.first ?? "?") == true, "\(log.stdout)")
        }
    }
}
