import APNs
import Foundation
import QueueModel
import QueueRules
import TestSupport
import Testing

@testable import PostgresStore
@testable import Store

@Suite struct LogTests {
    @Test(arguments: Engine.all) func filtersByCampaignTokenAndStatus(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<20)
        let first = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let second = try await store.createCampaign(bulk(.tokens((0..<5).map { token($0) })), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: t0, limit: 100, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.count == 25)
        let failures = jobs.filter { $0.campaignID == first && [token(3), token(4)].contains($0.token) }
        _ = try await store.record(
            failures.map {
                DeliveryResult($0, disposition: .failed, httpStatus: 500, reason: .internalServerError)
            }, by: nil, now: at(1))

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

    @Test(arguments: Engine.all) func pagesAndStreamsInIdOrder(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<23)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)

        let firstPage = try await store.log(LogFilter(campaign: id), after: nil, limit: 10)
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

    /// SQLite's plans (PostgreSQL's planner chooses from its statistics: `postgresQueriesUseTheirIndexes`).
    @Test func queriesUseTheirIndexes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let plans = try await store.queryPlans([
            "claim": Store.claimQuery,
            "expand all": Store.allPageBounds(activity: false),
            "expand activities": Store.allPageBounds(activity: true),
            "expand users": Store.insertSQL(.users, activity: false),
            "expand activities of users": Store.insertSQL(.users, activity: true),
            "expand tokens": Store.insertSQL(.tokens, activity: false),
            "expand all, leased": Store.insertSQL(.all, activity: false, leased: true),
            "expand users, leased": Store.insertSQL(.users, activity: false, leased: true),
            "expand tokens, leased": Store.insertSQL(.tokens, activity: false, leased: true),
            "leased jobs": Store.leasedJobsQuery,
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
        func expect(
            _ name: String, uses index: String, sorts: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let plan = plans[name] ?? ""
            #expect(plan.contains(index), "\(name): \(plan)", sourceLocation: sourceLocation)
            #expect(plan.contains("TEMP B-TREE") == sorts, "\(name): \(plan)", sourceLocation: sourceLocation)
        }
        expect("claim", uses: "deliveries_due")
        expect("expand all", uses: "INTEGER PRIMARY KEY")  // devices in id order, filtered
        expect("expand activities", uses: "devices_by_activity (topic=? AND kind=? AND activity_type=? AND id>?)")
        expect("expand users", uses: "SEARCH u USING PRIMARY KEY (user_id=?)")
        expect("expand activities of users", uses: "SEARCH u USING PRIMARY KEY (user_id=?)")
        expect("expand tokens", uses: "sqlite_autoindex_devices_1")
        expect("expand all, leased", uses: "INTEGER PRIMARY KEY (rowid>? AND rowid<?)")
        expect("expand users, leased", uses: "SEARCH u USING PRIMARY KEY (user_id=?)")
        expect("expand tokens, leased", uses: "sqlite_autoindex_devices_1")
        expect("leased jobs", uses: "SEARCH d USING INTEGER PRIMARY KEY (rowid>?)")
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

    /// PostgreSQL's planner chooses from its statistics: on a table of 100,000 rows (analyzed), each log query reads
    /// its own index when planned for its values, as the store plans them (`readPlannedForValues`; a generic plan,
    /// PostgreSQL 15, read a campaign's rows along the primary key).
    @Test(.enabled(if: PostgresCluster.enabled)) func postgresQueriesUseTheirIndexes() async throws {
        let store = try await PostgresStore.open(url: try PostgresCluster.shared.createDatabase())
        try await store.execute(Self.postgresRows)
        let queries: [String: (sql: String, parameters: [PGValue])] = [
            "token": PostgresStore.logQuery(LogFilter(token: token(77), status: .failed), order: .oldestFirst),
            "user": PostgresStore.logQuery(LogFilter(user: "u77"), order: .oldestFirst),
            "user since": PostgresStore.logQuery(LogFilter(user: "u77", since: t0), order: .newestFirst, bound: .max),
            "campaign": PostgresStore.logQuery(LogFilter(campaign: CampaignID(3)), order: .oldestFirst),
            "campaign status": PostgresStore.logQuery(
                LogFilter(campaign: CampaignID(3), status: .accepted), order: .oldestFirst),
            "failed": PostgresStore.logQuery(LogFilter(status: .rejected), order: .oldestFirst),
            "window": PostgresStore.logQuery(LogFilter(since: at(50), until: at(60)), order: .oldestFirst),
            "follow": PostgresStore.logQuery(LogFilter(), order: .byUpdate, from: at(99_000).storeMilliseconds),
            "follow campaign": PostgresStore.logQuery(
                LogFilter(campaign: CampaignID(5)), order: .byUpdate,
                from: at(99_000).storeMilliseconds),
            "last changed": PostgresStore.logQuery(
                LogFilter(until: at(50_000)), order: .byUpdateNewestFirst,
                bound: .max, from: at(50_000).storeMilliseconds),
            "gauges": (PostgresStore.gaugesSQL, []),
            "activities": (
                PostgresStore.allPageBounds(activity: true),
                [.text("com.example.app"), .null, .int(0), .int(1000), .text("activity"), .text("DeliveryAttributes")]
            ),
        ]
        let plans = try await store.plans(queries)
        func expect(_ name: String, uses index: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let plan = plans[name] ?? ""
            #expect(plan.contains(index), "\(name): \(plan)", sourceLocation: sourceLocation)
        }
        expect("token", uses: "deliveries_by_device")
        expect("token", uses: "deliveries_by_unregistered_token")
        expect("user", uses: "devices_by_user")
        expect("user", uses: "deliveries_by_device")
        expect("user since", uses: "deliveries_by_device")
        expect("campaign", uses: "deliveries_by_campaign")
        expect("campaign status", uses: "deliveries_by_campaign")
        expect("failed", uses: "deliveries_problems")
        expect("window", uses: "deliveries_by_update")
        expect("follow", uses: "deliveries_by_update")
        expect("follow campaign", uses: "deliveries_by_update")
        expect("last changed", uses: "Index Scan Backward using deliveries_by_update")
        expect("activities", uses: "devices_by_activity")
        // `/metrics`: each class's oldest due row is the first key of deliveries_due, and of deliveries_due_at for
        // the rows workers hold, not a scan of the pending rows.
        for index in ["deliveries_due on", "deliveries_due_at on"] {
            #expect(
                plans["gauges"]?.components(separatedBy: "Index Only Scan using \(index)").count == 3,
                "\(plans["gauges"] ?? "")")
        }
        await store.close()
    }

    /// 20,000 devices (users u0…: two devices each, every other device) and 200 Live Activity tokens, 5 campaigns of 20,000 deliveries (1% failed,
    /// 0.5% rejected, the newest 1,000 pending), a second apart, and 100 deliveries to unregistered tokens.
    static let postgresRows = """
        INSERT INTO devices (token, topic, environment, user_id, active, registered_at)
        SELECT lpad(to_hex(i), 64, '0'), 'com.example.app', 'production', CASE WHEN i % 2 = 0 THEN 'u' || (i / 4) END,
               i % 10 <> 0, 0
        FROM generate_series(1, 20000) i;
        INSERT INTO devices (token, topic, environment, active, registered_at, kind, activity_type)
        SELECT lpad(to_hex(40000 + i), 64, '0'), 'com.example.app', 'production', true, 0, 'activity',
               CASE WHEN i % 2 = 0 THEN 'DeliveryAttributes' ELSE 'RideAttributes' END
        FROM generate_series(1, 200) i;
        INSERT INTO campaigns (kind, status, topic, push_type, priority, payload, audience, scheduled_at, created_at, expanded)
        SELECT 'bulk', 'running', 'com.example.app', 'alert', 10, '\\x00', 'all', 0, 0, true FROM generate_series(1, 5);
        INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, attempts,
                                next_attempt_at, reason, created_at, updated_at)
        SELECT 1 + i / 20000, 1 + i % 20000, lpad(to_hex(1 + i % 20000), 64, '0'), 'production', 1,
               CASE WHEN i % 100 = 7 THEN 'failed' WHEN i % 200 = 3 THEN 'rejected' WHEN i >= 99000 THEN 'pending' ELSE 'accepted' END,
               1, \(t0.storeMilliseconds) + i * 1000,
               CASE WHEN i % 100 = 7 THEN 'InternalServerError' WHEN i % 200 = 3 THEN 'BadDeviceToken' END,
               \(t0.storeMilliseconds) + i * 1000, \(t0.storeMilliseconds) + i * 1000
        FROM generate_series(0, 99999) i;
        INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, attempts,
                                next_attempt_at, created_at, updated_at)
        SELECT 5, NULL, lpad(to_hex(30000 + i), 64, '0'), 'production', 1, 'accepted', 1, 0,
               \(t0.storeMilliseconds) + i, \(t0.storeMilliseconds) + i
        FROM generate_series(1, 100) i;
        ANALYZE;
        """
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

extension PostgresStore {
    /// `EXPLAIN` of each query planned for its parameters' values, as one line of its plan.
    func plans(_ queries: [String: (sql: String, parameters: [PGValue])]) throws -> [String: String] {
        try readPlannedForValues { db in
            var plans: [String: String] = [:]
            for (name, query) in queries {
                // PREPARE and EXECUTE in SQL: the plan of a prepared statement, as the store's are.
                let types = query.parameters.map { if case .text = $0 { "text" } else { "bigint" } }
                let values = query.parameters.map { value -> String in
                    switch value {
                    case .int(let number): return String(number)
                    case .text(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
                    default: return "NULL"
                    }
                }
                try db.execute(
                    "PREPARE plan_me \(types.isEmpty ? "" : "(" + types.joined(separator: ", ") + ")") AS \(query.sql)")
                defer { try? db.execute("DEALLOCATE plan_me") }
                // The sixth run, when PostgreSQL would first consider a generic plan.
                for _ in 0..<6 {
                    let rows = try db.query(
                        "EXPLAIN EXECUTE plan_me \(values.isEmpty ? "" : "(" + values.joined(separator: ", ") + ")")")
                    plans[name] = try rows.map { try rows.string($0, 0) }.joined(separator: " | ")
                }
            }
            return plans
        }
    }
}
