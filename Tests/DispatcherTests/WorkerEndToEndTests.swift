import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import QueueModel
import Store
import Testing

/// The worker against apns-mock over real TLS HTTP/2, with a real SQLite queue and real ES256 tokens.
@Suite
struct WorkerEndToEndTests {
    @Test func everyDeviceEndsWithExactlyOneTerminalRow() async throws {
        let scenario = Scenario(tokenPrefixes: [
            "dead": TokenBehaviour(respond: .unregistered),
            "bad0": TokenBehaviour(respond: .badDeviceToken),
            "c0de": TokenBehaviour(failTimes: 2, failStatus: 429),
            "fa11": TokenBehaviour(failTimes: 1, failStatus: 503),
            "b00b": TokenBehaviour(failTimes: 1, failStatus: 500),
        ])
        let harness = try await DispatchHarness(scenario: scenario)
        try await harness.register(400, prefix: "a11c")
        try await harness.register(30, prefix: "dead")
        try await harness.register(20, prefix: "bad0")
        try await harness.register(25, prefix: "c0de")
        try await harness.register(15, prefix: "fa11")
        try await harness.register(10, prefix: "b00b")
        let campaign = try await harness.campaign()

        let summary = try await harness.worker().run(untilIdle: true)

        let rows = try await harness.log(campaign)
        #expect(rows.count == 500)
        #expect(Set(rows.map(\.token)).count == 500)
        #expect(rows.allSatisfy { $0.status != .pending })
        let byStatus = Dictionary(grouping: rows, by: \.status).mapValues(\.count)
        #expect(byStatus[.accepted] == 450)
        #expect(byStatus[.unregistered] == 30)
        #expect(byStatus[.rejected] == 20)
        #expect(
            rows.filter { $0.token!.hex.hasPrefix("c0de") }.allSatisfy { $0.attempts == 3 && $0.status == .accepted })
        #expect(
            rows.filter { $0.token!.hex.hasPrefix("fa11") }.allSatisfy { $0.attempts == 2 && $0.status == .accepted })
        #expect(
            rows.filter { $0.status == .accepted }.allSatisfy {
                $0.apnsID.map { NotificationID.isCanonical(Array($0.utf8)) } == true
            })
        #expect(summary.accepted == 450 && summary.unregistered == 30 && summary.rejected == 20)
        #expect(summary.retried == 25 * 2 + 15 + 10)

        let stats = harness.server.stats()
        #expect(stats.totals.tokensAcceptedTwice == 0)
        #expect(stats.totals.requests == 500 + 25 * 2 + 15 + 10)
        #expect(stats.validationFailures.isEmpty)
        let campaignRow = try await harness.store.campaign(campaign)
        #expect(campaignRow.status == .completed)
        #expect(campaignRow.counters.accepted == 450)
        await harness.shutdown()
    }

    @Test func unregisteredRespectsTheTimestamp() async throws {
        let hourAgo = Int64(Date().addingTimeInterval(-3600).timeIntervalSince1970 * 1000)
        let staleOld = DispatchHarness.token("dead", 1)
        let reRegistered = DispatchHarness.token("dead", 2)
        let scenario = Scenario(tokens: [
            staleOld.hex: TokenBehaviour(respond: .unregistered),
            reRegistered.hex: TokenBehaviour(respond: .unregistered, timestamp: hourAgo),
        ])
        let harness = try await DispatchHarness(scenario: scenario)
        // Both registered two hours ago; the second registers again now, after its 410 timestamp.
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        _ = try await harness.store.importDevices(
            [staleOld, reRegistered].map {
                DeviceRegistration(token: $0, topic: DispatchHarness.topic)
            }, now: twoHoursAgo)
        _ = try await harness.store.register(DeviceRegistration(token: reRegistered, topic: DispatchHarness.topic))
        let campaign = try await harness.campaign()

        _ = try await harness.worker().run(untilIdle: true)

        let rows = try await harness.log(campaign)
        #expect(rows.count == 2 && rows.allSatisfy { $0.status == .unregistered && $0.httpStatus == 410 })
        let gone = try #require(try await harness.store.device(token: staleOld, topic: DispatchHarness.topic))
        let back = try #require(try await harness.store.device(token: reRegistered, topic: DispatchHarness.topic))
        #expect(!gone.isActive && gone.reason == .unregistered)
        #expect(back.isActive)

        // An inactive device is never sent to again.
        let second = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let secondRows = try await harness.log(second)
        #expect(secondRows.map(\.token) == [reRegistered])
        #expect(harness.server.stats().count(token: staleOld.hex, status: 410) == 1)
        await harness.shutdown()
    }

    @Test func badDeviceTokenDeactivatesWithoutRetry() async throws {
        let bad = DispatchHarness.token("bad0", 1)
        let harness = try await DispatchHarness(
            scenario: Scenario(tokens: [bad.hex: TokenBehaviour(respond: .badDeviceToken)]))
        _ = try await harness.store.register(DeviceRegistration(token: bad, topic: DispatchHarness.topic))
        let campaign = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(
            rows.count == 1 && rows[0].status == .rejected && rows[0].reason == .badDeviceToken && rows[0].attempts == 1
        )
        let device = try #require(try await harness.store.device(token: bad, topic: DispatchHarness.topic))
        #expect(!device.isActive && device.reason == .badDeviceToken)
        #expect(harness.server.stats().totals.requests == 1)
        await harness.shutdown()
    }

    @Test func retriesStopAtTheAttemptLimit() async throws {
        let harness = try await DispatchHarness(
            scenario: Scenario(tokenPrefixes: ["f0f0": TokenBehaviour(failTimes: 100, failStatus: 503)]))
        try await harness.register(3, prefix: "f0f0")
        let campaign = try await harness.campaign()
        let summary = try await harness.worker(maxAttempts: 4).run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(
            rows.allSatisfy {
                $0.status == .failed && $0.attempts == 4 && $0.httpStatus == 503 && $0.reason == .serviceUnavailable
            })
        #expect(summary.failed == 3)
        #expect(harness.server.stats().totals.requests == 12)
        await harness.shutdown()
    }

    @Test func noRetryPastTheExpiration() async throws {
        let harness = try await DispatchHarness(
            scenario: Scenario(tokenPrefixes: ["f0f0": TokenBehaviour(failTimes: 100, failStatus: 429)]))
        try await harness.register(2, prefix: "f0f0")
        // apns-expiration 0 means "try once": a 429 is final.
        let campaign = try await harness.campaign(expiration: .immediately)
        _ = try await harness.worker().run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(rows.allSatisfy { $0.status == .failed && $0.attempts == 1 && $0.reason == .tooManyRequests })
        await harness.shutdown()
    }

    @Test func goawayMidCampaignLosesNothingAndDuplicatesNothing() async throws {
        let scenario = Scenario(connection: ConnectionFaults(goawayAfter: 150, faultyConnections: 4))
        let harness = try await DispatchHarness(scenario: scenario, connections: 2)
        try await harness.register(1200)
        let campaign = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(rows.count == 1200)
        #expect(rows.allSatisfy { $0.status == .accepted })
        let stats = harness.server.stats()
        #expect(stats.connections.filter(\.goawaySent).count == 4)
        #expect(stats.connections.count > 4, "connections that sent GOAWAY were replaced")
        // GOAWAY is graceful: streams above last-stream-id were never processed, so nothing is accepted twice.
        #expect(stats.totals.tokensAcceptedTwice == 0)
        await harness.shutdown()
    }

    @Test func abruptCloseMidCampaignLosesNothing() async throws {
        let scenario = Scenario(connection: ConnectionFaults(closeAfter: 300, faultyConnections: 2))
        let harness = try await DispatchHarness(scenario: scenario, connections: 2)
        try await harness.register(1200)
        let campaign = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(rows.count == 1200)
        #expect(Set(rows.map(\.token)).count == 1200)
        #expect(rows.allSatisfy { $0.status == .accepted })
        let stats = harness.server.stats()
        // The 300th request of each faulty connection was never answered: the socket dropped instead.
        #expect(stats.connections.filter { !$0.open && $0.requests == 299 }.count == 2)
        // Answers written but not yet flushed when the socket dropped are lost to the client, which sends those
        // again: at-least-once. Only requests in flight on a cut connection can be doubled.
        let inFlightPerConnection = 1000
        #expect(stats.totals.tokensAcceptedTwice <= 2 * inFlightPerConnection)
        #expect(stats.totals.statuses["200"]! >= 1200 + stats.totals.tokensAcceptedTwice)
        await harness.shutdown()
    }

    @Test func expiredProviderTokenMintsExactlyOneNewToken() async throws {
        // The first token is minted two hours in the past; APNs says ExpiredProviderToken; the worker mints
        // one fresh token (the clock has moved on) and everything goes through with it.
        let calls = Counter()
        let clock: @Sendable () -> Date = { calls.next() == 0 ? Date().addingTimeInterval(-7200) : Date() }
        let harness = try await DispatchHarness(tokenClock: clock)
        try await harness.register(200)
        let campaign = try await harness.campaign()
        let summary = try await harness.worker().run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(rows.allSatisfy { $0.status == .accepted })
        #expect(await harness.tokens.mintCount == 2)
        #expect(summary.tokenRefreshes >= 1)
        #expect(harness.server.stats().totals.statuses["403"] ?? 0 >= 1)
        await harness.shutdown()
    }

    @Test func oneProviderTokenForTheWholeRun() async throws {
        let harness = try await DispatchHarness(connections: 3)
        try await harness.register(900)
        _ = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let stats = harness.server.stats()
        #expect(await harness.tokens.mintCount == 1)
        #expect(stats.connections.allSatisfy { $0.distinctProviderTokens == 1 })
        #expect(stats.totals.statuses["200"] == 900)
        #expect(stats.totals.tokensAcceptedTwice == 0)
        await harness.shutdown()
    }

    @Test func aThrottledCampaignGoesThroughTheThrottledPool() async throws {
        // The rate itself is measured where time can be trusted: ThrottleModelTests on simulated time, and the
        // throttled-pool benchmark (BENCHMARKS.md) at the server. Here: the worker's pools carry the rate, and a
        // throttled campaign still delivers everything exactly once.
        let rate = 1500
        let harness = try await DispatchHarness(connections: 2, rate: rate)
        try await harness.register(3000)
        _ = try await harness.campaign()
        _ = try await harness.worker().run(untilIdle: true)
        let stats = harness.server.stats()
        #expect(stats.totals.statuses["200"] == 3000)
        #expect(stats.totals.tokensAcceptedTwice == 0)
        let pool = try harness.transport.pool(
            for: harness.credentials(harness.tokens).byName["default"]!.poolKey(.production))
        #expect(pool.connections.count == 2 && pool.connections.allSatisfy { $0.configuration.ratePerSecond == rate })
        #expect(pool.connections.allSatisfy { $0.stats.sent > 0 }, "both connections carried part of the campaign")
        await harness.shutdown()
    }

    @Test func configurationErrorStopsWithoutBurningTheQueue() async throws {
        // The simulator expects another team id: every token is InvalidProviderToken.
        let harness = try await DispatchHarness(serverTeamID: "OTHERTEAM1")
        try await harness.register(50)
        let campaign = try await harness.campaign()
        await #expect(throws: DispatcherError.self) { try await harness.worker().run(untilIdle: true) }
        let rows = try await harness.log(campaign)
        #expect(rows.count == 50)
        #expect(rows.allSatisfy { $0.status == .pending && $0.attempts == 0 })
        // A second worker can claim them again at once: no lease was left behind.
        let jobs = try await harness.store.claim(now: Date(), limit: 100, leaseFor: .seconds(60))
        #expect(jobs.count == 50)
        await harness.shutdown()
    }

    /// That single sends are claimed (so sent) ahead of bulk work is decided by the Store's claim and proven there
    /// (StoreTests' ClaimOrderTests); here, only that a single send behind a bulk backlog is delivered once, with the
    /// backlog, by one run. How many bulk answers came back before it depends on the machine's load.
    @Test func aSingleSendBehindABulkBacklogIsDeliveredInTheSameRun() async throws {
        let harness = try await DispatchHarness(connections: 1, rate: 500)
        try await harness.register(1000)
        let bulk = try await harness.campaign()
        let vip = DispatchHarness.token("0001", 1)
        let single = try await harness.store.enqueueSingle(
            .single(
                to: vip,
                content: try NotificationContent(
                    bundleID: DispatchHarness.topic, payload: Payload(json: #"{"aps":{"alert":"now"}}"#))))
        let summary = try await harness.worker().run(untilIdle: true)
        let singleRows = try await harness.log(single)
        let bulkRows = try await harness.log(bulk)
        #expect(singleRows.count == 1 && singleRows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        #expect(bulkRows.count == 1000 && bulkRows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        #expect(summary.accepted == 1001)
        #expect(harness.server.stats().totals.tokensAcceptedTwice == 0)
        await harness.shutdown()
    }
}

/// A thread-safe call counter for injected clocks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        defer { value += 1 }
        return value
    }
}
