import APNs
import Foundation
import ProviderAuth
import QueueModel
import TestSupport
import Testing

/// `Idempotency-Key` over a real socket: a replay answers the first response and enqueues nothing, another
/// body is 422, keys are scoped to the API key, and concurrent duplicates enqueue once.
@Suite struct APIIdempotencyTests {
    @Test func replaysConflictsAndScopes() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let body = APITester.notification(Tokens.hex(1))

            let first = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(first.status == 202 && first.headers["idempotent-replayed"] == nil, "\(first.text)")
            let id = try #require(try APITester.object(first)["id"] as? String)
            let written = try await api.written()

            let replay = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(
                replay.status == 200 && replay.headers["idempotent-replayed"] == "true",
                "\(replay.status) \(replay.headers)")
            #expect(
                try APITester.object(replay)["id"] as? String == id
                    && (try APITester.object(replay))["deliveries"] as? Int == 1)
            #expect(try await api.written() == written, "a replay enqueued something")

            let other = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(2)),
                headers: ["Idempotency-Key: order-17"])
            #expect(
                try other.status == 422 && (try APITester.error(other))["code"] as? String == "idempotency_key_reused",
                "\(other.text)")
            #expect(try await api.written() == written, "a 422 enqueued something")

            // The same key from another API key is its own request.
            let elsewhere = await api.call(
                "POST", "/v1/notifications", key: api.sender, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(elsewhere.status == 202 && elsewhere.headers["idempotent-replayed"] == nil, "\(elsewhere.text)")
            let elsewhereID = try APITester.object(elsewhere)["id"] as? String
            #expect(elsewhereID != nil && elsewhereID != id)
            let elsewhereAgain = await api.call(
                "POST", "/v1/notifications", key: api.sender, json: body, headers: ["Idempotency-Key: order-17"])
            #expect(
                try elsewhereAgain.status == 200
                    && (try APITester.object(elsewhereAgain))["id"] as? String == elsewhereID)

            let longest = String(repeating: "k", count: 255)
            #expect(
                await api.call(
                    "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: \(longest)"]
                ).status == 202)
            #expect(
                await api.call(
                    "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: \(longest)"]
                ).status == 200)
            let spaced = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: body, headers: ["Idempotency-Key: two words"])
            #expect(try spaced.status == 400 && APITester.error(spaced)["field"] as? String == "Idempotency-Key")

            // Batches and campaigns replay the same way (a campaign's replay is 200, not 201).
            let batchBody =
                #"{"notifications":[\#(APITester.notification(Tokens.hex(3))),\#(APITester.notification(Tokens.hex(4)))]}"#
            let batch = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: batchBody,
                headers: ["Idempotency-Key: batch-1"])
            #expect(batch.status == 202)
            let batchAgain = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: batchBody,
                headers: ["Idempotency-Key: batch-1"])
            #expect(
                batchAgain.status == 200 && batchAgain.headers["idempotent-replayed"] == "true"
                    && batchAgain.text == batch.text, "\(batchAgain.text)")
            let campaignBody = #"{"payload":{"aps":{}},"audience":{"tokens":["\#(Tokens.hex(5))"]}}"#
            let campaign = await api.call(
                "POST", "/v1/campaigns", key: api.admin, json: campaignBody,
                headers: ["Idempotency-Key: cron-2026-12-01"])
            #expect(campaign.status == 201)
            let campaignAgain = await api.call(
                "POST", "/v1/campaigns", key: api.admin, json: campaignBody,
                headers: ["Idempotency-Key: cron-2026-12-01"])
            #expect(
                campaignAgain.status == 200 && campaignAgain.headers["idempotent-replayed"] == "true"
                    && campaignAgain.text == campaign.text)
            let campaigns =
                try APITester.object(await api.call("GET", "/v1/campaigns", key: api.admin))["campaigns"] as? [Any]
            #expect(campaigns?.count == 1, "the replayed campaign was created once")

            let log = try await api.deliveries()
            #expect(
                log.count == 5,
                "token 1 three times (two API keys, the 255-character key), tokens 3 and 4; campaign 5 is not expanded without a worker: \(log)"
            )
            #expect(log.filter { $0.target.token?.hex == Tokens.hex(1) }.count == 3)

            // The access log (written whatever the log level): one line per request with the route's template, never
            // the path; the API key's name, never its secret; and whether it was a replay.
            #expect(await api.call("GET", "/v1/notifications/\(id)", key: api.reader).status == 200)
            #expect(await api.call("GET", "/v1/devices/\(Tokens.hex(9))", key: nil).status == 401)
            let lines = api.accessLog.withLock { $0 }
            let access = try lines.map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            try #require(access.count >= 4 && access.allSatisfy { $0["msg"] as? String == "api.request" }, "\(lines)")
            func expect(_ object: [String: Any], _ fields: [String: Any]) {
                for (name, value) in fields {
                    switch value {
                    case let text as String where text == "absent": #expect(object[name] == nil, "\(name) in \(object)")
                    case let text as String: #expect(object[name] as? String == text, "\(name) in \(object)")
                    case let flag as Bool: #expect(object[name] as? Bool == flag, "\(name) in \(object)")
                    case let number as Int: #expect(object[name] as? Int == number, "\(name) in \(object)")
                    default: Issue.record("\(name): \(value)")
                    }
                }
                #expect(object["duration_ms"] is Double, "\(object)")
            }
            expect(
                access[0],
                ["method": "POST", "route": "/v1/notifications", "status": 202, "api_key": "backend", "replay": false])
            expect(
                access[1],
                ["method": "POST", "route": "/v1/notifications", "status": 200, "api_key": "backend", "replay": true])
            expect(
                access[access.count - 2],
                [
                    "method": "GET", "route": "/v1/notifications/{id}", "status": 200, "api_key": "reader",
                    "replay": false,
                ])
            expect(access[access.count - 1], ["route": "/v1/devices/{token}", "status": 401, "api_key": "absent"])
            let secrets = [api.backend, api.reader, api.sender, api.admin, Tokens.hex(9), "order-17"]
            #expect(!lines.contains { line in secrets.contains { line.contains($0) } }, "a secret or a path in the log")
        }
    }

    /// `"dryRun": true` answers how many devices a campaign would reach, by environment, and writes nothing (nor
    /// its key); an `at` more than 5 minutes past is 400 naming `at`, but a replay is answered first: a scheduled
    /// create retried after its time still gets its first answer.
    @Test func dryRunsAndPastTimes() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            for (token, environment) in [(1, "production"), (2, "production"), (3, "development")] {
                let put = await api.call(
                    "PUT", "/v1/devices/\(Tokens.hex(token))", key: api.backend,
                    json: #"{"environment":"\#(environment)","user":"u\#(token)"}"#)
                #expect(put.status == 201, "\(put.text)")
            }
            let written = try await api.written()
            let audiences = [
                (#"{"all":true},"at":"now""#, 2, 1),
                (#"{"users":["u1","u3","u3","nobody"]}"#, 1, 1),
                (#"{"tokens":["\#(Tokens.hex(1))","\#(Tokens.hex(9))"]},"environment":"development""#, 1, 1),
            ]
            for (audience, production, development) in audiences {
                let dry = await api.call(
                    "POST", "/v1/campaigns", key: api.admin,
                    json: #"{"payload":{"aps":{}},"audience":\#(audience),"dryRun":true}"#,
                    headers: ["Idempotency-Key: dry-run"])
                #expect(
                    dry.status == 200
                        && dry.text.trimmingCharacters(in: .newlines)
                            == #"{"dryRun":true,"audience":{"production":\#(production),"development":\#(development)}}"#,
                    "\(audience): \(dry.status) \(dry.text)")
            }
            #expect(try await api.written() == written, "a dry run wrote something")

            let past = #"{"payload":{"aps":{}},"audience":{"all":true},"at":"2020-01-01T00:00:00Z"}"#
            for dryRun in ["", #","dryRun":true"#] {
                let refused = await api.call(
                    "POST", "/v1/campaigns", key: api.admin, json: String(past.dropLast()) + dryRun + "}")
                #expect(
                    refused.status == 400 && refused.errorField == "at"
                        && refused.text.contains("more than 5 minutes in the past"), "\(refused.text)")
            }
            #expect(try await api.written() == written, "a refused time wrote something")

            // That body was accepted with this key while its time was ahead (the store takes any time): a retry now
            // replays the first answer instead of refusing the time.
            let content = try NotificationContent(
                bundleID: APITester.topic, payload: try Payload(bytes: Array(#"{"aps":{}}"#.utf8)))
            let spec = CampaignSpec(
                audience: .all(), content: content, scheduledAt: Date(timeIntervalSince1970: 1_577_836_800))
            let ops = try #require(try await api.store.apiKeys().first { $0.name == "ops" })
            let key = IdempotencyKey(
                scope: .apiKey(id: ops.id), key: "sale-2020", requestHash: SHA256.hex(Array(past.utf8)))
            let first = try await api.store.enqueue([EnqueueRequest(specs: [spec], idempotency: key)], now: Date())[0]
                .get()
            let retried = await api.call(
                "POST", "/v1/campaigns", key: api.admin, json: past, headers: ["Idempotency-Key: sale-2020"])
            #expect(
                retried.status == 200 && retried.headers["idempotent-replayed"] == "true"
                    && retried.text.trimmingCharacters(in: .newlines) == #"{"id":"\#(first.ids[0])"}"#,
                "\(retried.status) \(retried.text)")
        }
    }

    /// Keys belong to the API key's id, not its name: a key revoked and created again under the same name sends
    /// the revoked key's `Idempotency-Key` as new work (202), with the old body (no replay) or another (no 422).
    @Test func aKeyCreatedAgainUnderARevokedNameStartsAfresh() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let body = APITester.notification(Tokens.hex(1))
            let old = try await api.key("rotated", [.send])
            let first = await api.call(
                "POST", "/v1/notifications", key: old, json: body, headers: ["Idempotency-Key: nightly"])
            #expect(first.status == 202, "\(first.text)")
            let firstID = try #require(try APITester.object(first)["id"] as? String)
            let replay = await api.call(
                "POST", "/v1/notifications", key: old, json: body, headers: ["Idempotency-Key: nightly"])
            #expect(replay.status == 200 && replay.headers["idempotent-replayed"] == "true", "\(replay.text)")
            let batch = #"{"notifications":[\#(APITester.notification(Tokens.hex(2)))]}"#
            let oldBatch = await api.call(
                "POST", "/v1/notifications/batch", key: old, json: batch, headers: ["Idempotency-Key: order-1"])
            #expect(oldBatch.status == 202, "\(oldBatch.text)")

            #expect(try await api.store.revokeAPIKey(name: "rotated"))
            let new = try await api.key("rotated", [.send])
            let campaigns = try #require(Int(try await api.query("SELECT count(*) FROM campaigns").first ?? ""))
            let again = await api.call(
                "POST", "/v1/notifications", key: new, json: body, headers: ["Idempotency-Key: nightly"])
            #expect(again.status == 202 && again.headers["idempotent-replayed"] == nil, "\(again.status) \(again.text)")
            let againID = try #require(try APITester.object(again)["id"] as? String)
            #expect(againID != firstID)
            let changed = await api.call(
                "POST", "/v1/notifications", key: new, json: APITester.notification(Tokens.hex(3)),
                headers: ["Idempotency-Key: order-1"])
            #expect(changed.status == 202 && changed.headers["idempotent-replayed"] == nil, "\(changed.text)")
            #expect(
                try await api.query("SELECT count(*) FROM campaigns") == ["\(campaigns + 2)"], "two new notifications")
            // The new key's own keys replay as usual.
            let newReplay = await api.call(
                "POST", "/v1/notifications", key: new, json: body, headers: ["Idempotency-Key: nightly"])
            #expect(
                try newReplay.status == 200 && (try APITester.object(newReplay))["id"] as? String == againID,
                "\(newReplay.text)")
        }
    }

    @Test func concurrentDuplicatesEnqueueOnce() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let before = try await api.written()
            let body = APITester.notification(Tokens.hex(1))
            let responses = await withTaskGroup(of: APITester.Reply.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        await api.call(
                            "POST", "/v1/notifications", key: api.backend, json: body,
                            headers: ["Idempotency-Key: same-for-all"])
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }.filter { $0.status != 0 }
            #expect(responses.count == 8, "every request answered")
            #expect(responses.filter { $0.status == 202 }.count == 1, "\(responses.map(\.status))")
            #expect(
                responses.filter { $0.status == 200 && $0.headers["idempotent-replayed"] == "true" }.count == 7,
                "\(responses.map(\.status))")
            let ids = Set(
                responses.compactMap { try? JSONSerialization.jsonObject(with: Data($0.text.utf8)) as? [String: Any] }
                    .compactMap { $0["id"] as? String })
            #expect(ids.count == 1, "one id for all: \(ids)")
            let after = try await api.written()
            let counts = (before.first ?? "").split(separator: "|").compactMap { Int($0) }
            let nowCounts = (after.first ?? "").split(separator: "|").compactMap { Int($0) }
            #expect(
                counts.count == 4 && nowCounts == [counts[0] + 1, counts[1] + 1, counts[2], counts[3] + 1],
                "one notification, one delivery, one stored key (a single token needs no audience rows): \(before) → \(after)"
            )
            let log = try await api.deliveries()
            #expect(log.count == 1 && log.first.map { String($0.campaignID.rawValue) } == ids.first, "\(log)")
        }
    }
}
