import Foundation
import TestSupport
import Testing

extension APIServe {
    /// The notification, batch, campaign and delivery routes of `apnsd serve --no-worker`, over real sockets: the
    /// success answers and their shapes, and every error status the issue lists for them.
    @Suite struct APIRouteTests {
        @Test func notificationsBatchAndTheirErrors() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try APIHarness(cli: cli)
            defer { api.stop() }
            try #require(
                api.cli.run("device", "add", CLI.token(7), "--topic", "com.example.app", "--user", "alice").status == 0)

            let one = try api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: APIHarness.notification(CLI.token(1), extra: #","topic":"com.example.app""#))
            #expect(one.status == 202 && one.headers["content-type"] == "application/json", "\(one.status) \(one.body)")
            let oneBody = try APIHarness.object(one)
            let id = try #require(oneBody["id"] as? String, "the id is a JSON string: \(one.body)")
            #expect(oneBody["deliveries"] as? Int == 1)

            let many = try api.call(
                "POST", "/v1/notifications", key: api.sender,
                json: """
                    {"tokens":["\(CLI.token(2))","\(CLI.token(3))"],"payload":{"aps":{"alert":"x"}},"topic":"com.example.app","pushType":"alert",
                     "priority":5,"expiration":4102444800,"collapseId":"c1","apnsId":"123e4567-e89b-12d3-a456-426614174000","environment":"development"}
                    """)
            #expect(try many.status == 202 && (try APIHarness.object(many))["deliveries"] as? Int == 2, "\(many.body)")
            let user = try api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: #"{"user":"alice","payload":{"aps":{}},"topic":"com.example.app"}"#)
            #expect(try user.status == 202 && (try APIHarness.object(user))["deliveries"] as? Int == 1, "\(user.body)")

            let shown = try api.call("GET", "/v1/notifications/\(id)", key: api.reader)
            #expect(shown.status == 200, "\(shown.body)")
            let notification = try APIHarness.object(shown)
            #expect(
                notification["id"] as? String == id && notification["status"] as? String != nil
                    && notification["createdAt"] is String)
            #expect((notification["counts"] as? [String: Int])?["pending"] == 1, "\(shown.body)")
            let deliveries = try #require(notification["deliveries"] as? [[String: Any]])
            #expect(
                deliveries.count == 1 && deliveries.first?["token"] as? String == CLI.token(1)
                    && deliveries.first?["status"] as? String == "pending")

            let listed = try api.call("GET", "/v1/deliveries?notification=\(id)", key: api.reader)
            #expect(listed.status == 200)
            let rows = try #require(try APIHarness.object(listed)["deliveries"] as? [[String: Any]])
            #expect(
                rows.map { $0["token"] as? String } == [CLI.token(1)] && rows.first?["campaign"] as? String == id,
                "\(listed.body)")
            #expect(try APIHarness.object(listed)["next"] is NSNull)

            let batch = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\(APIHarness.notification(CLI.token(4))),\(APIHarness.notification(CLI.token(5))),{"user":"alice","payload":{"aps":{}}}]}
                    """)
            #expect(batch.status == 202, "\(batch.body)")
            let ids = try #require(try APIHarness.object(batch)["ids"] as? [String], "\(batch.body)")
            #expect(ids.count == 3 && Set(ids).count == 3 && !ids.contains(id))

            let cancelled = try api.call("DELETE", "/v1/notifications/\(ids[0])", key: api.sender)
            #expect(cancelled.status == 200, "\(cancelled.body)")
            let cancelBody = try APIHarness.object(cancelled)
            #expect(cancelBody["cancelled"] as? Int == 1 && cancelBody["inFlight"] as? Int == 0, "\(cancelled.body)")
            let again = try api.call("DELETE", "/v1/notifications/\(ids[0])", key: api.sender)
            #expect(
                try again.status == 409 && (try APIHarness.error(again))["code"] as? String == "already_finished",
                "\(again.body)")

            // A large batch is stored as one row until a worker writes its notifications (none runs here): they
            // read as scheduled, without deliveries, and one can be cancelled.
            let deferred = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\((0..<20).map { APIHarness.notification(CLI.token(300 + $0)) }.joined(separator: ","))]}
                    """)
            let largeIDs = try #require(try APIHarness.object(deferred)["ids"] as? [String], "\(deferred.body)")
            #expect(deferred.status == 202 && largeIDs.count == 20)
            let waiting = try APIHarness.object(
                try api.call("GET", "/v1/notifications/\(largeIDs[0])", key: api.reader))
            #expect(
                waiting["status"] as? String == "scheduled" && (waiting["deliveries"] as? [Any])?.isEmpty == true,
                "\(waiting)")
            #expect((waiting["counts"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true, "\(waiting)")
            let dropped = try api.call("DELETE", "/v1/notifications/\(largeIDs[1])", key: api.sender)
            #expect(
                try dropped.status == 200 && (try APIHarness.object(dropped))["cancelled"] as? Int == 1,
                "\(dropped.body)")
            let droppedNow = try APIHarness.object(
                try api.call("GET", "/v1/notifications/\(largeIDs[1])", key: api.reader))
            #expect(droppedNow["status"] as? String == "cancelled", "\(droppedNow)")
            #expect(
                try APIHarness.object(try api.call("GET", "/v1/notifications/\(largeIDs[2])", key: api.reader))[
                    "status"] as? String == "scheduled")

            let unknown = try api.call("GET", "/v1/notifications/99999", key: api.reader)
            #expect(try unknown.status == 404 && (try APIHarness.error(unknown))["code"] as? String == "not_found")
            #expect(try api.call("DELETE", "/v1/notifications/99999", key: api.sender).status == 404)
            let notAnID = try api.call("GET", "/v1/notifications/abc", key: api.reader)
            #expect(try notAnID.status == 400 && (try APIHarness.error(notAnID))["field"] as? String == "id")

            let put = try api.call("PUT", "/v1/notifications", key: api.backend, json: "{}")
            #expect(
                try put.status == 405 && put.headers["allow"] == "POST"
                    && (try APIHarness.error(put))["code"] as? String == "method_not_allowed")
            let patch = try api.call("PATCH", "/v1/notifications/\(id)", key: api.backend)
            #expect(patch.status == 405 && patch.headers["allow"] == "GET, DELETE", "\(patch.headers)")
            #expect(try api.call("GET", "/v1/campaigns/\(id)/retry", key: api.admin).headers["allow"] == "POST")

            // Every invalid request below is refused with its status and field, and writes nothing.
            let beforeInvalid = try api.written()
            let tooManyTokens = (0...10_000).map { "\"\(CLI.token($0))\"" }.joined(separator: ",")
            let invalid: [(String, String?)] = [
                (APIHarness.notification(CLI.token(1), extra: #","colour":"red""#), "colour"),
                (#"{"token":42,"payload":{"aps":{}}}"#, "token"),
                (#"{"token":"\#(CLI.token(1))","payload":"text"}"#, "payload"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"priority":"high"}"#, "priority"),
                (#"{"token":"xyz","payload":{"aps":{}}}"#, "token"),
                (#"{"tokens":["\#(CLI.token(1))","nothex"],"payload":{"aps":{}}}"#, "tokens"),
                (
                    #"{"token":"\#(CLI.token(1))","payload":{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}}"#,
                    "payload"
                ),
                (#"{"token":"\#(CLI.token(1))","user":"alice","payload":{"aps":{}}}"#, "user"),
                (#"{"tokens":[\#(tooManyTokens)],"payload":{"aps":{}}}"#, "tokens"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"apnsId":"not-a-uuid"}"#, "apnsId"),
                (#"{"user":"alice","payload":{"aps":{}},"environment":"production"}"#, "environment"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"priority":7}"#, "priority"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"pushType":"shout"}"#, "pushType"),
                (
                    #"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"collapseId":"\#(String(repeating: "c", count: 65))"}"#,
                    "collapseId"
                ),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"expiration":1.5}"#, "expiration"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"environment":"staging"}"#, "environment"),
                (#"{"token":"\#(CLI.token(1))","payload":{"aps":{}},"topic":""}"#, "topic"),
                (#"{"users":[],"payload":{"aps":{}}}"#, "users"),
                (#"{"payload":{"aps":{}}}"#, "token"),
                (#"{"token":"\#(CLI.token(1))"}"#, "payload"),
                (#"[1,2]"#, nil),
                (#"{"token":"#, nil),
            ]
            for (body, field) in invalid {
                let refused = try api.call("POST", "/v1/notifications", key: api.backend, json: body)
                #expect(refused.status == 400, "\(body.prefix(120)): \(refused.status) \(refused.body)")
                let error = try APIHarness.error(refused)
                #expect(
                    error["code"] as? String == "invalid_request" && (error["message"] as? String)?.isEmpty == false)
                #expect(error["field"] as? String == field, "\(body.prefix(120)): \(refused.body)")
            }

            let badItem = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend,
                json: """
                    {"notifications":[\(APIHarness.notification(CLI.token(8))),\(APIHarness.notification(CLI.token(9))),{"token":"bad","payload":{"aps":{}}}]}
                    """)
            #expect(badItem.status == 400, "\(badItem.body)")
            let itemError = try APIHarness.error(badItem)
            #expect(itemError["index"] as? Int == 2 && itemError["field"] as? String == "token", "\(badItem.body)")
            for body in [
                #"{}"#, #"{"notifications":[]}"#, #"{"notifications":{}}"#, #"{"notifications":[],"extra":1}"#,
            ] {
                let refused = try api.call("POST", "/v1/notifications/batch", key: api.backend, json: body)
                #expect(
                    try refused.status == 400 && (try APIHarness.error(refused))["field"] as? String != nil,
                    "\(body): \(refused.body)")
            }
            let tooBig = (0...10_000).map { _ in APIHarness.notification(CLI.token(1)) }.joined(separator: ",")
            let overLimit = try api.call(
                "POST", "/v1/notifications/batch", key: api.backend, json: #"{"notifications":[\#(tooBig)]}"#)
            #expect(
                try overLimit.status == 400 && (try APIHarness.error(overLimit))["field"] as? String == "notifications",
                "\(overLimit.body.prefix(300))")

            let plain = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(CLI.token(1)),
                headers: ["Content-Type: text/plain"])
            #expect(
                try plain.status == 415 && (try APIHarness.error(plain))["code"] as? String == "unsupported_media_type",
                "\(plain.body)")
            let form = try #require(
                HTTPClient.request(
                    "POST", api.base + "/v1/notifications/batch", headers: ["Authorization: Bearer \(api.backend)"],
                    body: #"{"notifications":[]}"#))
            #expect(form.status == 415, "curl's default form type is not JSON: \(form.body)")

            // Over 1 MiB on /v1/notifications: 413 before the body is parsed (padding is valid JSON whitespace).
            let padded = APIHarness.notification(CLI.token(1)) + String(repeating: " ", count: 1 << 20)
            let large = try cli.write("large.json", padded)
            let huge = try api.call("POST", "/v1/notifications", key: api.backend, bodyFile: large)
            #expect(huge.status == 413, "\(huge.status) \(huge.body.prefix(200))")
            #expect(try api.written() == beforeInvalid, "an invalid request wrote something")

            // Exactly 1 MiB is within the limit.
            let exact = APIHarness.notification(CLI.token(10))
            let atLimit = try api.call(
                "POST", "/v1/notifications", key: api.backend,
                bodyFile: try cli.write(
                    "exact.json", exact + String(repeating: " ", count: (1 << 20) - exact.utf8.count)))
            #expect(atLimit.status == 202, "\(atLimit.status) \(atLimit.body.prefix(200))")
            let charset = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(CLI.token(11)),
                headers: ["Content-Type: application/json; charset=utf-8"])
            #expect(charset.status == 202, "\(charset.body)")
            let before = try api.written()
            let badKey = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(CLI.token(1)),
                headers: ["Idempotency-Key: " + String(repeating: "k", count: 256)])
            #expect(
                try badKey.status == 400 && (try APIHarness.error(badKey))["field"] as? String == "Idempotency-Key",
                "\(badKey.body)")

            #expect(try api.written() == before, "an invalid request wrote something")
            let log = try cli.run("log", "--json")
            // The large batch has three: its last notification, and the first two, written when the second was cancelled.
            #expect(
                log.status == 0 && log.lines.count == 12,
                "1 + 2 + 1 deliveries, 3 from the batch (alice has one device), 3 from the large one, 2 more: \(log.lines.count)"
            )
        }

        @Test func campaignsAndTheirErrors() throws {
            let cli = try CLI()
            defer { cli.cleanUp() }
            let api = try APIHarness(cli: cli)
            defer { api.stop() }
            let tokens = (1...3).map { "\"\(CLI.token($0))\"" }.joined(separator: ",")

            let created = try api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: """
                    {"payload":{"aps":{"alert":"sale"}},"audience":{"tokens":[\(tokens)]},"topic":"com.example.app","priority":5}
                    """)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(try APIHarness.object(created)["id"] as? String)
            let later = try api.call(
                "POST", "/v1/campaigns", key: api.admin,
                json: """
                    {"payload":{"aps":{}},"audience":{"all":true},"topic":"com.example.app","at":"2099-01-01T00:00:00Z"}
                    """)
            #expect(later.status == 201, "\(later.body)")
            let laterID = try #require(try APIHarness.object(later)["id"] as? String)
            let single = try api.call(
                "POST", "/v1/notifications", key: api.backend,
                json: APIHarness.notification(CLI.token(9), extra: #","topic":"t.x""#))
            let singleID = try #require(try APIHarness.object(single)["id"] as? String)

            // A 2 MiB body is accepted on the campaign route (its limit is 64 MiB).
            let padded =
                #"{"payload":{"aps":{}},"audience":{"users":["bob"]},"topic":"com.example.app"}"#
                + String(repeating: "\n", count: 2 << 20)
            let big = try api.call(
                "POST", "/v1/campaigns", key: api.admin, bodyFile: try cli.write("campaign.json", padded))
            #expect(big.status == 201, "\(big.status) \(big.body.prefix(200))")

            let list = try api.call("GET", "/v1/campaigns", key: api.reader)
            #expect(list.status == 200, "\(list.body)")
            let campaigns = try #require(try APIHarness.object(list)["campaigns"] as? [[String: Any]])
            #expect(Set(campaigns.compactMap { $0["id"] as? String }).isSuperset(of: [id, laterID]))
            #expect(!campaigns.contains { $0["id"] as? String == singleID }, "bulk campaigns only unless kind=single")
            let singles =
                try APIHarness.object(try api.call("GET", "/v1/campaigns?kind=single", key: api.reader))["campaigns"]
                as? [[String: Any]]
            #expect(singles?.map { $0["id"] as? String } == [singleID])
            let firstPage = try APIHarness.object(try api.call("GET", "/v1/campaigns?limit=1", key: api.reader))
            #expect((firstPage["campaigns"] as? [Any])?.count == 1 && firstPage["next"] is String, "\(firstPage)")

            let shown = try api.call("GET", "/v1/campaigns/\(id)", key: api.admin)
            #expect(shown.status == 200, "\(shown.body)")
            let campaign = try APIHarness.object(shown)
            #expect(
                campaign["id"] as? String == id && campaign["kind"] as? String == "bulk"
                    && campaign["counts"] is [String: Int]
                    && campaign["ratePerSecond"] is NSNumber && campaign.keys.contains("eta"), "\(shown.body)")
            #expect(try api.call("GET", "/v1/campaigns/424242", key: api.reader).status == 404)

            let cancel = try api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin)
            #expect(try cancel.status == 200 && (try APIHarness.object(cancel))["cancelled"] is Int, "\(cancel.body)")
            let cancelAgain = try api.call("POST", "/v1/campaigns/\(id)/cancel", key: api.admin)
            #expect(cancelAgain.status == 409, "\(cancelAgain.body)")
            let retryCancelled = try api.call("POST", "/v1/campaigns/\(id)/retry", key: api.admin)
            #expect(
                try retryCancelled.status == 409
                    && (try APIHarness.error(retryCancelled))["code"] as? String == "conflict", "\(retryCancelled.body)"
            )
            let cancelled = try APIHarness.object(
                try api.call("GET", "/v1/campaigns?status=cancelled", key: api.reader))
            #expect((cancelled["campaigns"] as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(cancelled)")
            #expect(try api.call("POST", "/v1/campaigns/424242/cancel", key: api.admin).status == 404)
            #expect(try api.call("POST", "/v1/campaigns/424242/retry", key: api.admin).status == 404)
            let deleteCampaign = try api.call("DELETE", "/v1/campaigns/\(id)", key: api.admin)
            #expect(deleteCampaign.status == 405 && deleteCampaign.headers["allow"] == "GET")

            let before = try api.written()
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
                let refused = try api.call("POST", "/v1/campaigns", key: api.admin, json: body)
                #expect(
                    try refused.status == 400 && (try APIHarness.error(refused))["field"] as? String == field,
                    "\(body): \(refused.body)")
            }
            let xml = try api.call(
                "POST", "/v1/campaigns", key: api.admin, json: "<campaign/>", headers: ["Content-Type: application/xml"]
            )
            #expect(xml.status == 415)
            for query in ["status=bogus", "kind=x", "limit=0", "limit=1001", "after=x", "colour=red"] {
                #expect(try api.call("GET", "/v1/campaigns?\(query)", key: api.reader).status == 400, "\(query)")
            }
            for query in [
                "notification=x", "token=abc", "status=gone", "limit=5000", "since=yesterday", "reason=no%20such",
                "campaign=1&notification=2",
                "colour=red",
            ] {
                let refused = try api.call("GET", "/v1/deliveries?\(query)", key: api.reader)
                #expect(
                    try refused.status == 400
                        && (try APIHarness.error(refused))["code"] as? String == "invalid_request",
                    "\(query): \(refused.body)")
            }
            #expect(try api.written() == before, "an invalid request wrote something")
        }
    }
}
