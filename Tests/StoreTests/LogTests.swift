import APNs
import Foundation
import QueueModel
import Testing
@testable import Store

@Suite struct LogTests {
    @Test func filtersByCampaignTokenAndStatus() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        try await store.registerDevices(0..<20)
        let first = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let second = try await store.createCampaign(bulk(.tokens((0..<5).map { token($0) })), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: t0, limit: 100, leaseFor: .seconds(30))
        #expect(jobs.count == 25)
        let failures = jobs.filter { $0.campaignID == first && [token(3), token(4)].contains($0.token) }
        try await store.record(failures.map {
            DeliveryResult($0, disposition: .failed, httpStatus: 500, reason: .internalServerError)
        }, now: at(1))

        #expect(try await store.allLog().count == 25)
        #expect(try await store.allLog(LogFilter(campaign: first)).count == 20)
        #expect(try await store.allLog(LogFilter(campaign: second)).count == 5)
        let byToken = try await store.allLog(LogFilter(token: token(3)))
        #expect(Set(byToken.map(\.campaignID)) == [first, second])
        #expect(try await store.allLog(LogFilter(campaign: second, token: token(3))).map(\.campaignID) == [second])
        let failed = try await store.allLog(LogFilter(status: .failed))
        #expect(Set(failed.map(\.token)) == [token(3), token(4)])
        #expect(failed.allSatisfy { $0.campaignID == first && $0.httpStatus == 500 && $0.updatedAt == at(1) })
        #expect(try await store.allLog(LogFilter(token: token(3), status: .failed)).count == 1)
        #expect(try await store.allLog(LogFilter(campaign: second, status: .failed)).isEmpty)
        #expect(try await store.allLog(LogFilter(campaign: first, status: .pending)).count == 18)
    }

    @Test func pagesAndStreamsInIdOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        try await store.registerDevices(0..<23)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)

        let firstPage = try await store.log(LogFilter(campaign: id), limit: 10)
        let secondPage = try await store.log(LogFilter(campaign: id), after: firstPage.last?.id, limit: 10)
        #expect(firstPage.count == 10)
        #expect(secondPage.count == 10)
        #expect(firstPage.last!.id < secondPage.first!.id)

        var streamed: [LogEntry] = []
        for try await entry in store.logEntries(LogFilter(campaign: id), pageSize: 4) { streamed.append(entry) }
        #expect(streamed.count == 23)
        #expect(streamed.map(\.id) == streamed.map(\.id).sorted())
        #expect(Set(streamed.map(\.id)).count == 23)
    }

    @Test func queriesUseTheirIndexes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let plans = try await store.queryPlans([
            "claim": Store.claimQuery,
            "expand all": Store.allPageBounds,
            "expand users": Store.insertSQL(.users),
            "expand tokens": Store.insertSQL(.tokens),
            "import links": Store.linkScanSQL,
            "log token": Store.logQuery(LogFilter(token: token(1), status: .failed)),
            "log campaign": Store.logQuery(LogFilter(campaign: CampaignID(1))),
            "log campaign status": Store.logQuery(LogFilter(campaign: CampaignID(1), status: .accepted)),
            "log failed": Store.logQuery(LogFilter(status: .failed)),
            "log user": Store.logQuery(LogFilter(user: "u1")),
            "log user since": Store.logQuery(LogFilter(user: "u1", since: t0)),
            "log reason": Store.logQuery(LogFilter(reason: .badDeviceToken)),
            "log reason since": Store.logQuery(LogFilter(reason: .badDeviceToken, since: t0, until: t0)),
            "log window": Store.logQuery(LogFilter(since: t0, until: t0)),
            "log window newest": Store.logQuery(LogFilter(since: t0, until: t0), order: .newestFirst),
            "log since newest": Store.logQuery(LogFilter(since: t0), order: .newestFirst),
            "log since": Store.logQuery(LogFilter(since: t0)),
            "changed in a window": Store.logQuery(LogFilter(since: t0, until: t0), order: .byUpdate),
            "last changed": Store.logQuery(LogFilter(until: t0), order: .byUpdateNewestFirst),
            "last changed, failed": Store.logQuery(LogFilter(status: .failed, since: t0), order: .byUpdateNewestFirst),
            "log failed since": Store.logQuery(LogFilter(status: .failed, since: t0)),
            "log campaign since": Store.logQuery(LogFilter(campaign: CampaignID(1), since: t0)),
            "follow": Store.logQuery(LogFilter(), order: .byUpdate),
            "follow campaign": Store.logQuery(LogFilter(campaign: CampaignID(1)), order: .byUpdate),
        ])
        func expect(_ name: String, uses index: String, sorts: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
            let plan = plans[name] ?? ""
            #expect(plan.contains(index), "\(name): \(plan)", sourceLocation: sourceLocation)
            #expect(plan.contains("TEMP B-TREE") == sorts, "\(name): \(plan)", sourceLocation: sourceLocation)
        }
        expect("claim", uses: "deliveries_due")
        expect("expand all", uses: "INTEGER PRIMARY KEY")  // devices in id order, filtered
        expect("expand users", uses: "SEARCH u USING PRIMARY KEY (user_id=?)")
        expect("expand tokens", uses: "sqlite_autoindex_devices_1")
        expect("import links", uses: "sqlite_autoindex_devices_1 (token>? AND token<?)")
        expect("log token", uses: "deliveries_by_device", sorts: true)  // a token's few rows are sorted
        expect("log token", uses: "deliveries_by_unregistered_token", sorts: true)
        expect("log campaign", uses: "deliveries_by_campaign")
        expect("log campaign status", uses: "deliveries_by_campaign")
        expect("log failed", uses: "deliveries_problems")
        expect("log user", uses: "SEARCH device_users USING PRIMARY KEY (user_id=?)", sorts: true)  // a user's few rows
        expect("log user", uses: "deliveries_by_device", sorts: true)
        expect("log user since", uses: "deliveries_by_device", sorts: true)
        expect("log reason", uses: "deliveries_by_reason (reason=?")
        expect("log reason since", uses: "deliveries_by_reason (reason=?")
        // A closed time window alone reads its rows through deliveries_by_update and sorts only them; an open one
        // is read in id order (newest first, `--since` rows come first; oldest first, pages make one pass).
        expect("log window", uses: "deliveries_by_update (updated_at>? AND updated_at<?)", sorts: true)
        expect("log window newest", uses: "deliveries_by_update (updated_at>? AND updated_at<?)", sorts: true)
        expect("log since newest", uses: "INTEGER PRIMARY KEY (rowid<?)")
        expect("log since", uses: "INTEGER PRIMARY KEY (rowid>?)")
        expect("changed in a window", uses: "deliveries_by_update (updated_at>? AND updated_at<?)")
        expect("last changed", uses: "deliveries_by_update (updated_at<?)")  // read backwards, no sort
        expect("last changed, failed", uses: "deliveries_by_update (updated_at>? AND updated_at<?)")
        expect("log failed since", uses: "deliveries_problems")
        expect("log campaign since", uses: "deliveries_by_campaign")
        // --follow reads the rows changed since its last poll in the index's own order.
        expect("follow", uses: "deliveries_by_update (updated_at>?)")
        expect("follow campaign", uses: "deliveries_by_update (updated_at>?)")
    }
}

extension Store {
    /// `EXPLAIN QUERY PLAN` of each query, as one line of its details.
    func queryPlans(_ queries: [String: String]) throws -> [String: String] {
        try read { db in
            var plans: [String: String] = [:]
            for (name, sql) in queries {
                let statement = try db.prepare("EXPLAIN QUERY PLAN " + sql)
                var details: [String] = []
                while try statement.step() { details.append(statement.string(3)) }
                plans[name] = details.joined(separator: " | ")
            }
            return plans
        }
    }
}
