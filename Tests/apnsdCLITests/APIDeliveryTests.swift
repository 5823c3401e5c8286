import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd serve` with its worker, sending to apns-mock over TLS: a notification posted to the API is delivered
/// and shown as such, a campaign completes, and `/v1/deliveries` pages through every row once, newest first —
/// on SQLite and on PostgreSQL.
@Suite(.offThePool) struct APIDeliveryTests {
    static let engines = PostgresCluster.enabled ? ["sqlite", "postgres"] : ["sqlite"]

    @Test(arguments: engines) func postedNotificationIsDeliveredAndDeliveriesPage(engine: String) async throws {
        let database = engine == "postgres" ? try PostgresCluster.shared.createDatabase() : nil
        let fleet = try await Fleet(devices: 20, rate: 500, campaign: false, database: database)
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: [], initialized: true)
        defer { api.stop() }

        let posted = try api.call(
            "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(Tokens.hex(1)))
        #expect(posted.status == 202, "\(posted.body)")
        let id = try #require(try APIHarness.object(posted)["id"] as? String)
        var shown: [String: Any] = [:]
        let delivered = try await Fleet.eventually(30, every: 0.05) {
            shown = try APIHarness.object(try api.call("GET", "/v1/notifications/\(id)", key: api.reader))
            return (shown["deliveries"] as? [[String: Any]])?.first?["status"] as? String == "accepted"
        }
        #expect(delivered, "not accepted in time: \(shown); log: \(api.serve.log.suffix(2000))")
        let delivery = try #require((shown["deliveries"] as? [[String: Any]])?.first)
        #expect(
            delivery["token"] as? String == Tokens.hex(1) && delivery["httpStatus"] as? Int == 200
                && delivery["attempts"] as? Int == 1
                && delivery["apnsId"] is String && delivery["updatedAt"] is String, "\(delivery)")
        #expect((shown["counts"] as? [String: Int])?["accepted"] == 1)
        #expect(
            await Fleet.eventually(10) {
                (try? APIHarness.object(try api.call("GET", "/v1/notifications/\(id)", key: api.reader)))?["status"]
                    as? String == "completed"
            })
        #expect(fleet.accepted == 1, "the mock got it")
        let byNotification = try APIHarness.object(
            try api.call("GET", "/v1/deliveries?notification=\(id)", key: api.reader))
        #expect(
            (byNotification["deliveries"] as? [[String: Any]])?.map { $0["status"] as? String } == ["accepted"],
            "\(byNotification)")

        let created = try api.call(
            "POST", "/v1/campaigns", key: api.admin, json: #"{"payload":\#(Fleet.payload),"audience":{"all":true}}"#
        )
        #expect(created.status == 201, "\(created.body)")
        let campaign = try #require(try APIHarness.object(created)["id"] as? String)
        #expect(
            await Fleet.eventually(30, every: 0.05) {
                (try? APIHarness.object(try api.call("GET", "/v1/campaigns/\(campaign)", key: api.reader)))?[
                    "status"] as? String == "completed"
            }, "campaign not completed; log: \(api.serve.log.suffix(2000))")
        let retried = try api.call("POST", "/v1/campaigns/\(campaign)/retry", key: api.admin)
        #expect(
            try retried.status == 200 && (try APIHarness.object(retried))["requeued"] as? Int == 0,
            "nothing failed: \(retried.body)")
        let finished = try api.call("POST", "/v1/campaigns/\(campaign)/cancel", key: api.admin)
        #expect(finished.status == 409, "cancel of a completed campaign: \(finished.body)")
        let accepted = try APIHarness.object(
            try api.call("GET", "/v1/deliveries?campaign=\(campaign)&status=accepted&limit=1000", key: api.reader))
        #expect((accepted["deliveries"] as? [Any])?.count == 20)

        // Paging with limit and after: every row once, newest first, and a row written meanwhile does not
        // shift the pages (it is newer than the cursor).
        let stored = try await fleet.log().compactMap { $0["id"] as? String }
        #expect(stored.count == 21)
        var seen: [Int] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try APIHarness.object(
                try api.call(
                    "GET", "/v1/deliveries?limit=4" + (cursor.map { "&after=\($0)" } ?? ""), key: api.reader))
            let rows = try #require(page["deliveries"] as? [[String: Any]], "\(page)")
            seen += rows.compactMap { ($0["id"] as? String).flatMap(Int.init) }
            cursor = page["next"] as? String
            pages += 1
            if pages == 1 {
                #expect(
                    try api.call(
                        "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(Tokens.hex(2))
                    ).status == 202)
            }
        } while cursor != nil && pages < 50
        #expect(seen.count == 21 && Set(seen) == Set(stored.compactMap(Int.init)), "\(seen) vs \(stored)")
        #expect(seen == seen.sorted(by: >), "newest first: \(seen)")
        #expect(pages == 6, "21 rows in pages of 4: \(pages)")

        // Health, stats and metrics read the same store.
        let ready = try api.call("GET", "/readyz", key: nil)
        #expect(ready.status == 200 && ready.body.contains(#""database":"ok""#), "\(ready.body)")
        let stats = try APIHarness.object(try api.call("GET", "/v1/stats?since=1h", key: api.reader))
        #expect(stats["outcomes"] != nil && (stats["accepted"] as? Int ?? 0) >= 21, "\(stats)")
        let metrics = try api.call("GET", "/metrics", key: api.reader)
        #expect(
            metrics.status == 200 && metrics.body.contains("apnsd_devices{state=\"active\"} 20"),
            "\(metrics.body.prefix(3000))")
    }
}
