import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

/// The notification, batch, campaign and delivery routes of the API without a worker, over a real socket: the
/// success answers and their shapes, and every error status the issue lists for them.
@Suite struct APIRouteTests {
    @Test func notificationsBatchAndTheirErrors() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            _ = try await api.store.registerDevice(
                DeviceRegistration(token: try DeviceToken(Tokens.hex(7)), topic: "com.example.app", user: "alice"))

            let one = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: APITester.notification(Tokens.hex(1), extra: #","topic":"com.example.app""#))
            #expect(one.status == 202 && one.headers["content-type"] == "application/json", "\(one.status) \(one.text)")
            let oneBody = try APITester.object(one)
            let id = try #require(oneBody["id"] as? String, "the id is a JSON string: \(one.text)")
            #expect(oneBody["deliveries"] as? Int == 1)

            let many = await api.call(
                "POST", "/v1/notifications", key: api.sender,
                json: """
                    {"tokens":["\(Tokens.hex(2))","\(Tokens.hex(3))"],"payload":{"aps":{"alert":"x"}},"topic":"com.example.app","pushType":"alert",
                     "priority":5,"expiration":4102444800,"collapseId":"c1","apnsId":"123e4567-e89b-12d3-a456-426614174000","environment":"development"}
                    """)
            #expect(try many.status == 202 && (try APITester.object(many))["deliveries"] as? Int == 2, "\(many.text)")
            let user = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: #"{"user":"alice","payload":{"aps":{}},"topic":"com.example.app"}"#)
            #expect(try user.status == 202 && (try APITester.object(user))["deliveries"] as? Int == 1, "\(user.text)")

            let shown = await api.call("GET", "/v1/notifications/\(id)", key: api.reader)
            #expect(shown.status == 200, "\(shown.text)")
            let notification = try APITester.object(shown)
            #expect(
                notification["id"] as? String == id && notification["status"] as? String != nil
                    && notification["createdAt"] is String)
            #expect((notification["counts"] as? [String: Int])?["pending"] == 1, "\(shown.text)")
            let deliveries = try #require(notification["deliveries"] as? [[String: Any]])
            #expect(
                deliveries.count == 1 && deliveries.first?["token"] as? String == Tokens.hex(1)
                    && deliveries.first?["status"] as? String == "pending")

            let listed = await api.call("GET", "/v1/deliveries?notification=\(id)", key: api.reader)
            #expect(listed.status == 200)
            let rows = try #require(try APITester.object(listed)["deliveries"] as? [[String: Any]])
            #expect(
                rows.map { $0["token"] as? String } == [Tokens.hex(1)] && rows.first?["campaign"] as? String == id,
                "\(listed.text)")
            #expect(try APITester.object(listed)["next"] is NSNull)

            let batch = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\(APITester.notification(Tokens.hex(4))),\(APITester.notification(Tokens.hex(5))),{"user":"alice","payload":{"aps":{}}}]}
                    """)
            #expect(batch.status == 202, "\(batch.text)")
            let ids = try #require(try APITester.object(batch)["ids"] as? [String], "\(batch.text)")
            #expect(ids.count == 3 && Set(ids).count == 3 && !ids.contains(id))

            let cancelled = await api.call("DELETE", "/v1/notifications/\(ids[0])", key: api.sender)
            #expect(cancelled.status == 200, "\(cancelled.text)")
            let cancelBody = try APITester.object(cancelled)
            #expect(cancelBody["cancelled"] as? Int == 1 && cancelBody["inFlight"] as? Int == 0, "\(cancelled.text)")
            let again = await api.call("DELETE", "/v1/notifications/\(ids[0])", key: api.sender)
            #expect(
                try again.status == 409 && (try APITester.error(again))["code"] as? String == "already_finished",
                "\(again.text)")

            // A large batch is stored as one row until a worker writes its notifications (none runs here): they
            // read as scheduled, without deliveries, and one can be cancelled.
            let deferred = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\((0..<20).map { APITester.notification(Tokens.hex(300 + $0)) }.joined(separator: ","))]}
                    """)
            let largeIDs = try #require(try APITester.object(deferred)["ids"] as? [String], "\(deferred.text)")
            #expect(deferred.status == 202 && largeIDs.count == 20)
            let waiting = try APITester.object(
                await api.call("GET", "/v1/notifications/\(largeIDs[0])", key: api.reader))
            #expect(
                waiting["status"] as? String == "scheduled" && (waiting["deliveries"] as? [Any])?.isEmpty == true,
                "\(waiting)")
            #expect((waiting["counts"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true, "\(waiting)")
            let dropped = await api.call("DELETE", "/v1/notifications/\(largeIDs[1])", key: api.sender)
            #expect(
                try dropped.status == 200 && (try APITester.object(dropped))["cancelled"] as? Int == 1,
                "\(dropped.text)")
            let droppedNow = try APITester.object(
                await api.call("GET", "/v1/notifications/\(largeIDs[1])", key: api.reader))
            #expect(droppedNow["status"] as? String == "cancelled", "\(droppedNow)")
            #expect(
                try APITester.object(await api.call("GET", "/v1/notifications/\(largeIDs[2])", key: api.reader))[
                    "status"] as? String == "scheduled")

            let unknown = await api.call("GET", "/v1/notifications/99999", key: api.reader)
            #expect(try unknown.status == 404 && (try APITester.error(unknown))["code"] as? String == "not_found")
            #expect(await api.call("DELETE", "/v1/notifications/99999", key: api.sender).status == 404)
            let notAnID = await api.call("GET", "/v1/notifications/abc", key: api.reader)
            #expect(try notAnID.status == 400 && (try APITester.error(notAnID))["field"] as? String == "id")

            let put = await api.call("PUT", "/v1/notifications", key: api.backend, json: "{}")
            #expect(
                try put.status == 405 && put.headers["allow"] == "POST"
                    && (try APITester.error(put))["code"] as? String == "method_not_allowed")
            let patch = await api.call("PATCH", "/v1/notifications/\(id)", key: api.backend)
            #expect(patch.status == 405 && patch.headers["allow"] == "GET, DELETE", "\(patch.headers)")
            #expect(await api.call("GET", "/v1/campaigns/\(id)/retry", key: api.admin).headers["allow"] == "POST")

            // Every invalid request below is refused with its status and field, and writes nothing.
            let beforeInvalid = try await api.written()
            let tooManyTokens = (0...10_000).map { "\"\(Tokens.hex($0))\"" }.joined(separator: ",")
            let invalid: [(String, String?)] = [
                (APITester.notification(Tokens.hex(1), extra: #","colour":"red""#), "colour"),
                (#"{"token":42,"payload":{"aps":{}}}"#, "token"),
                (#"{"token":"\#(Tokens.hex(1))","payload":"text"}"#, "payload"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"priority":"high"}"#, "priority"),
                (#"{"token":"xyz","payload":{"aps":{}}}"#, "token"),
                (#"{"tokens":["\#(Tokens.hex(1))","nothex"],"payload":{"aps":{}}}"#, "tokens"),
                (
                    #"{"token":"\#(Tokens.hex(1))","payload":{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}}"#,
                    "payload"
                ),
                (#"{"token":"\#(Tokens.hex(1))","user":"alice","payload":{"aps":{}}}"#, "user"),
                (#"{"tokens":[\#(tooManyTokens)],"payload":{"aps":{}}}"#, "tokens"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"apnsId":"not-a-uuid"}"#, "apnsId"),
                (#"{"user":"alice","payload":{"aps":{}},"environment":"production"}"#, "environment"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"priority":7}"#, "priority"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"pushType":"shout"}"#, "pushType"),
                (
                    #"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"collapseId":"\#(String(repeating: "c", count: 65))"}"#,
                    "collapseId"
                ),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"expiration":1.5}"#, "expiration"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"environment":"staging"}"#, "environment"),
                (#"{"token":"\#(Tokens.hex(1))","payload":{"aps":{}},"topic":""}"#, "topic"),
                (#"{"users":[],"payload":{"aps":{}}}"#, "users"),
                (#"{"payload":{"aps":{}}}"#, "token"),
                (#"{"token":"\#(Tokens.hex(1))"}"#, "payload"),
                (#"[1,2]"#, nil),
                (#"{"token":"#, nil),
            ]
            for (body, field) in invalid {
                let refused = await api.call("POST", "/v1/notifications", key: api.backend, json: body)
                #expect(refused.status == 400, "\(body.prefix(120)): \(refused.status) \(refused.text)")
                let error = try APITester.error(refused)
                #expect(
                    error["code"] as? String == "invalid_request" && (error["message"] as? String)?.isEmpty == false)
                #expect(error["field"] as? String == field, "\(body.prefix(120)): \(refused.text)")
            }

            let badItem = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\(APITester.notification(Tokens.hex(8))),\(APITester.notification(Tokens.hex(9))),{"token":"bad","payload":{"aps":{}}}]}
                    """)
            #expect(badItem.status == 400, "\(badItem.text)")
            let itemError = try APITester.error(badItem)
            #expect(itemError["index"] as? Int == 2 && itemError["field"] as? String == "token", "\(badItem.text)")
            for body in [
                #"{}"#, #"{"notifications":[]}"#, #"{"notifications":{}}"#, #"{"notifications":[],"extra":1}"#,
            ] {
                let refused = await api.call("POST", "/v1/notifications/batch", key: api.backend, json: body)
                #expect(
                    try refused.status == 400 && (try APITester.error(refused))["field"] as? String != nil,
                    "\(body): \(refused.text)")
            }
            let tooBig = (0...10_000).map { _ in APITester.notification(Tokens.hex(1)) }.joined(separator: ",")
            let overLimit = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: #"{"notifications":[\#(tooBig)]}"#)
            #expect(
                try overLimit.status == 400 && (try APITester.error(overLimit))["field"] as? String == "notifications",
                "\(overLimit.text.prefix(300))")

            let plain = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(1)),
                headers: ["Content-Type: text/plain"])
            #expect(
                try plain.status == 415 && (try APITester.error(plain))["code"] as? String == "unsupported_media_type",
                "\(plain.text)")
            let form = try #require(
                await HTTPClient.request(
                    "POST", api.base + "/v1/notifications/batch", headers: ["Authorization: Bearer \(api.backend)"],
                    body: #"{"notifications":[]}"#))
            #expect(form.status == 415, "curl's default form type is not JSON: \(form.body)")

            // Over 1 MiB on /v1/notifications: 413 before the body is parsed (padding is valid JSON whitespace).
            let padded = APITester.notification(Tokens.hex(1)) + String(repeating: " ", count: 1 << 20)
            let large = try api.write("large.json", padded)
            let huge = await api.call("POST", "/v1/notifications", key: api.backend, bodyFile: large)
            #expect(huge.status == 413, "\(huge.status) \(huge.text.prefix(200))")
            #expect(try await api.written() == beforeInvalid, "an invalid request wrote something")

            // Exactly 1 MiB is within the limit.
            let exact = APITester.notification(Tokens.hex(10))
            let atLimit = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                bodyFile: try api.write(
                    "exact.json", exact + String(repeating: " ", count: (1 << 20) - exact.utf8.count)))
            #expect(atLimit.status == 202, "\(atLimit.status) \(atLimit.text.prefix(200))")
            let charset = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(11)),
                headers: ["Content-Type: application/json; charset=utf-8"])
            #expect(charset.status == 202, "\(charset.text)")
            let before = try await api.written()
            let badKey = await api.call(
                "POST", "/v1/notifications", key: api.backend, json: APITester.notification(Tokens.hex(1)),
                headers: ["Idempotency-Key: " + String(repeating: "k", count: 256)])
            #expect(
                try badKey.status == 400 && (try APITester.error(badKey))["field"] as? String == "Idempotency-Key",
                "\(badKey.text)")

            #expect(try await api.written() == before, "an invalid request wrote something")
            let log = try await api.deliveries()
            // The large batch has three: its last notification, and the first two, written when the second was cancelled.
            #expect(
                log.count == 12,
                "1 + 2 + 1 deliveries, 3 from the batch (alice has one device), 3 from the large one, 2 more: \(log.count)"
            )
        }
    }

    @Test func campaignsAndTheirErrors() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let tokens = (1...3).map { "\"\(Tokens.hex($0))\"" }.joined(separator: ",")

            let created = await api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: """
                    {"payload":{"aps":{"alert":"sale"}},"audience":{"tokens":[\(tokens)]},"topic":"com.example.app","priority":5}
                    """)
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(try APITester.object(created)["id"] as? String)
            let later = await api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: """
                    {"payload":{"aps":{}},"audience":{"all":true},"topic":"com.example.app","at":"2099-01-01T00:00:00Z"}
                    """)
            #expect(later.status == 201, "\(later.text)")
            let laterID = try #require(try APITester.object(later)["id"] as? String)
            let single = await api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: APITester.notification(Tokens.hex(9), extra: #","topic":"t.x""#))
            let singleID = try #require(try APITester.object(single)["id"] as? String)

            // A 2 MiB body is accepted on the campaign route (its limit is 64 MiB).
            let padded =
                #"{"payload":{"aps":{}},"audience":{"users":["bob"]},"topic":"com.example.app"}"#
                + String(repeating: "\n", count: 2 << 20)
            let big = await api.call(
                "POST", "/v1/campaigns", key: api.admin, bodyFile: try api.write("campaign.json", padded))
            #expect(big.status == 201, "\(big.status) \(big.text.prefix(200))")

            let list = await api.call("GET", "/v1/campaigns", key: api.reader)
            #expect(list.status == 200, "\(list.text)")
            let campaigns = try #require(try APITester.object(list)["campaigns"] as? [[String: Any]])
            #expect(Set(campaigns.compactMap { $0["id"] as? String }).isSuperset(of: [id, laterID]))
            #expect(!campaigns.contains { $0["id"] as? String == singleID }, "bulk campaigns only unless kind=single")
            let singles =
                try APITester.object(await api.call("GET", "/v1/campaigns?kind=single", key: api.reader))["campaigns"]
                as? [[String: Any]]
            #expect(singles?.map { $0["id"] as? String } == [singleID])
            let firstPage = try APITester.object(await api.call("GET", "/v1/campaigns?limit=1", key: api.reader))
            #expect((firstPage["campaigns"] as? [Any])?.count == 1 && firstPage["next"] is String, "\(firstPage)")

            let shown = await api.call("GET", "/v1/campaigns/\(id)", key: api.admin)
            #expect(shown.status == 200, "\(shown.text)")
            let campaign = try APITester.object(shown)
            #expect(
                campaign["id"] as? String == id && campaign["kind"] as? String == "bulk"
                    && campaign["counts"] is [String: Int]
                    && campaign["ratePerSecond"] is NSNumber && campaign.keys.contains("eta"), "\(shown.text)")
            #expect(await api.call("GET", "/v1/campaigns/424242", key: api.reader).status == 404)

            let cancel = await api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin)
            #expect(try cancel.status == 200 && (try APITester.object(cancel))["cancelled"] is Int, "\(cancel.text)")
            let cancelAgain = await api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin)
            #expect(cancelAgain.status == 409, "\(cancelAgain.text)")
            let retryCancelled = await api.call("POST", "/v1/campaigns/\(id)/retry", key: api.admin)
            #expect(
                try retryCancelled.status == 409
                    && (try APITester.error(retryCancelled))["code"] as? String == "conflict", "\(retryCancelled.text)"
            )
            let cancelled = try APITester.object(
                await api.call("GET", "/v1/campaigns?status=cancelled", key: api.reader))
            #expect((cancelled["campaigns"] as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(cancelled)")
            #expect(await api.call("POST", "/v1/campaigns/424242/cancel", key: api.admin).status == 404)
            #expect(await api.call("POST", "/v1/campaigns/424242/retry", key: api.admin).status == 404)
            let deleteCampaign = await api.call("DELETE", "/v1/campaigns/\(id)", key: api.admin)
            #expect(deleteCampaign.status == 405 && deleteCampaign.headers["allow"] == "GET")

            let before = try await api.written()
            let invalid: [(String, String)] = [
                (#"{"payload":{"aps":{}},"audience":{"all":true},"colour":1}"#, "colour"),
                (#"{"payload":{"aps":{}},"audience":{"all":false}}"#, "audience.all"),
                (#"{"payload":{"aps":{}},"audience":{"all":true,"users":["a"]}}"#, "audience"),
                (#"{"payload":{"aps":{}},"audience":{"tokens":["zz"]}}"#, "audience.tokens"),
                (#"{"payload":{"aps":{}},"audience":{"tokens":[1]}}"#, "audience.tokens"),
                (#"{"payload":{"aps":{}},"audience":{"all":true,"x":1}}"#, "audience.x"),
                (#"{"payload":{"aps":{}},"audience":"all"}"#, "audience"),
                (#"{"payload":{"aps":{}}}"#, "audience"),
                (#"{"payload":{"aps":{}},"audience":{"all":true},"at":"tomorrow"}"#, "at"),
                (#"{"payload":{"aps":{}},"audience":{"all":true},"apnsId":"nope"}"#, "apnsId"),
                (#"{"payload":[],"audience":{"all":true}}"#, "payload"),
            ]
            for (body, field) in invalid {
                let refused = await api.call("POST", "/v1/campaigns", key: api.admin, json: body)
                #expect(
                    try refused.status == 400 && (try APITester.error(refused))["field"] as? String == field,
                    "\(body): \(refused.text)")
            }
            let xml = await api.call(
                "POST", "/v1/campaigns", key: api.admin, json: "<campaign/>", headers: ["Content-Type: application/xml"]
            )
            #expect(xml.status == 415)
            for query in ["status=bogus", "kind=x", "limit=0", "limit=1001", "after=x", "colour=red"] {
                #expect(await api.call("GET", "/v1/campaigns?\(query)", key: api.reader).status == 400, "\(query)")
            }
            for query in [
                "notification=x", "token=abc", "status=gone", "limit=5000", "since=yesterday", "reason=no%20such",
                "campaign=1&notification=2",
                "colour=red",
            ] {
                let refused = await api.call("GET", "/v1/deliveries?\(query)", key: api.reader)
                #expect(
                    try refused.status == 400
                        && (try APITester.error(refused))["code"] as? String == "invalid_request",
                    "\(query): \(refused.text)")
            }
            #expect(try await api.written() == before, "an invalid request wrote something")
        }
    }

    /// A batch body of 8 MB or more is validated without keeping its specs, which the store makes again as it
    /// writes them: refused as a smaller one is (the index, the field, nothing written), accepted with one id per
    /// notification, each stored as sent.
    @Test(.disabled(if: Sanitizers.thread, "megabytes of JSON and SQLite on one task: not a concurrency test"))
    func aBatchOfManyMegabytes() async throws {
        let api = try await APITester()
        try await withCleanup(await api.close()) {
            let alert = String(repeating: "y", count: 3_900)
            let items = (0..<2_200).map { n in
                #"{"token":"\#(Tokens.hex(n))","payload":{"aps":{"alert":"\#(n) \#(alert)"}},"priority":5}"#
            }
            let before = try await api.written()
            var refusedItems = items
            refusedItems[5] = #"{"token":"bad","payload":{"aps":{}}}"#
            let refusedBody = #"{"notifications":[\#(refusedItems.joined(separator: ","))]}"#
            #expect(refusedBody.utf8.count >= 8 << 20)
            // Generous limits: under a sanitizer, on a loaded machine, parsing megabytes takes a while.
            let refused = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: refusedBody, timeout: 300)
            #expect(refused.status == 400, "\(refused.text)")
            let error = try APITester.error(refused)
            #expect(
                error["index"] as? Int == 5 && error["field"] as? String == "token"
                    && (error["message"] as? String)?.hasPrefix("notifications[5]: ") == true, "\(refused.text)")
            #expect(try await api.written() == before, "a refused batch wrote something")

            let accepted = await api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: #"{"notifications":[\#(items.joined(separator: ","))]}"#, timeout: 300)
            #expect(accepted.status == 202, "\(accepted.text.prefix(300))")
            let ids = try #require(try APITester.object(accepted)["ids"] as? [String])
            #expect(ids.count == 2_200)
            #expect(try await api.query("SELECT sum(count) FROM deferred_batches") == ["2199"])
            for index in [0, 1_234, 2_199] {
                let shown = await api.call("GET", "/v1/notifications/\(ids[index])", key: api.backend)
                #expect(shown.status == 200, "\(shown.text)")
            }
            let last = try await api.query(
                "SELECT priority, CAST(payload AS TEXT) FROM campaigns WHERE id = \(ids[2_199])")
            #expect(last == [#"5|{"aps":{"alert":"2199 \#(alert)"}}"#])
        }
    }
}
