import APNs
import Dispatcher
import Foundation
import Logging
import ProviderAuth
import QueueModel
import Testing
import Threads

/// Several credentials in one worker: each topic goes out with its own credential, and one APNs refuses pauses only
/// its own deliveries (pending, attempts unspent) while the others keep sending; a reload that fixes it resumes them.
/// The simulator knows one team (TESTTEAM01): a credential naming another team is refused with InvalidProviderToken.
@Suite
struct CredentialRoutingTests {
    static let other = "com.example.other"

    private func credential(_ harness: DispatchHarness, _ name: String, team: String, fingerprint: String = "fixture")
        throws -> SendingCredential
    {
        let ids = try ProviderCredential(keyId: "TESTKEY001", teamId: team)
        return SendingCredential(
            name: name,
            authorization: .token(
                ProviderTokenCache(key: harness.key, credential: ids),
                keyID: ids.keyId, teamID: ids.teamId, fingerprint: fingerprint))
    }

    /// A worker on the harness's store and transport with `credentials`, polling fast.
    private func worker(
        _ harness: DispatchHarness, _ credentials: CredentialSet, retry: RetryPolicy = RetryPolicy(),
        logger: Logger = Logger(label: "test", sink: .none)
    ) -> Worker {
        Worker(
            store: harness.store, credentials: credentials, transport: harness.transport,
            configuration: WorkerConfiguration(
                lease: .seconds(5), heartbeat: .milliseconds(200), retry: retry, pollInterval: .milliseconds(50)),
            logger: logger)
    }

    private func routes(fallback: String? = nil) -> TopicRoutes {
        TopicRoutes(byBundleID: [DispatchHarness.topic: "good", Self.other: "bad"], fallback: fallback)
    }

    /// `count` devices of `topic` and a campaign to all of them.
    private func campaign(_ harness: DispatchHarness, topic: String, count: Int, prefix: String) async throws
        -> CampaignID
    {
        let tokens = (1...count).map { DispatchHarness.token(prefix, $0) }
        _ = try await harness.store.importDevices(
            tokens.map { DeviceRegistration(token: $0, topic: topic, environment: .production) }, now: Date())
        return try await harness.store.createCampaign(
            CampaignSpec(
                audience: .all(),
                content: NotificationContent(
                    bundleID: topic, payload: Payload(json: #"{"aps":{"alert":"hi"}}"#))))
    }

    private func waitUntil(_ seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test func aRefusedCredentialPausesOnlyItsDeliveriesUntilAReloadFixesIt() async throws {
        let harness = try await DispatchHarness()
        let good = try await campaign(harness, topic: DispatchHarness.topic, count: 40, prefix: "a11c")
        let bad = try await campaign(harness, topic: Self.other, count: 30, prefix: "b0b0")
        let set = CredentialSet(
            [try credential(harness, "good", team: "TESTTEAM01"), try credential(harness, "bad", team: "OTHERTEAM1")],
            routes: routes())
        let worker = worker(harness, set, retry: RetryPolicy(base: .milliseconds(50), cap: .milliseconds(300)))
        let stop = Locked(false)
        let run = Task { try await worker.run(untilIdle: false, shouldStop: { stop.withLock { $0 } }) }

        #expect(try await waitUntil(120) { try await harness.store.campaign(good).status == .completed })
        #expect(try await harness.store.campaign(good).counters.accepted == 40)
        // The other credential's deliveries wait, unsent as far as their attempts go, probed now and then.
        #expect(try await waitUntil(60) { worker.credentialStatuses.first { $0.name == "bad" }?.paused != nil })
        let paused = try #require(worker.credentialStatuses.first { $0.name == "bad" })
        #expect(paused.paused == "403 InvalidProviderToken" && paused.pausedSince != nil)
        #expect(worker.credentialStatuses.first { $0.name == "good" }?.paused == nil)
        try await Task.sleep(for: .milliseconds(500))
        let waiting = try await harness.log(bad)
        #expect(
            waiting.count == 30 && waiting.allSatisfy { $0.status == .pending && $0.attempts == 0 },
            "\(waiting.prefix(3))")
        #expect(harness.server.stats().totals.statuses["403", default: 0] >= 1)

        // A reload with the right team resumes them.
        await worker.reload(
            retry: RetryPolicy(base: .milliseconds(50), cap: .milliseconds(300)), logLevel: .info,
            credentials: CredentialSet(
                [set.byName["good"]!, try credential(harness, "bad", team: "TESTTEAM01", fingerprint: "fixed")],
                routes: routes()))
        #expect(try await waitUntil(120) { try await harness.store.campaign(bad).status == .completed })
        #expect(try await harness.store.campaign(bad).counters.accepted == 30)
        #expect(try await harness.log(bad).allSatisfy { $0.attempts == 1 })
        #expect(worker.credentialStatuses.allSatisfy { $0.paused == nil })
        stop.withLock { $0 = true }
        _ = try await run.value
        await harness.shutdown()
    }

    @Test func untilIdleSendsTheOthersThenStopsNamingTheRefusedCredential() async throws {
        let harness = try await DispatchHarness()
        let good = try await campaign(harness, topic: DispatchHarness.topic, count: 40, prefix: "a11c")
        let bad = try await campaign(harness, topic: Self.other, count: 30, prefix: "b0b0")
        let set = CredentialSet(
            [try credential(harness, "good", team: "TESTTEAM01"), try credential(harness, "bad", team: "OTHERTEAM1")],
            routes: routes())
        let worker = worker(harness, set)
        do {
            _ = try await worker.run(untilIdle: true)
            Issue.record("the run ended without naming the refused credential")
        } catch {
            guard case .stopped(.credentialsRefused(403, .invalidProviderToken, "bad")) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(try await harness.store.campaign(good).counters.accepted == 40)
        #expect(try await harness.log(bad).allSatisfy { $0.status == .pending && $0.attempts == 0 })
        // Left due at once for the next run, unleased.
        #expect(try await harness.store.claim(now: Date(), limit: 100, leaseFor: .seconds(60), worker: nil).count == 30)
        await harness.shutdown()
    }

    @Test func aTopicNoCredentialSendsWaitsAndIsNamed() async throws {
        let harness = try await DispatchHarness()
        let good = try await campaign(harness, topic: DispatchHarness.topic, count: 10, prefix: "a11c")
        let orphan = try await campaign(harness, topic: "com.example.orphan", count: 5, prefix: "0f0f")
        let worker = worker(
            harness, CredentialSet([try credential(harness, "good", team: "TESTTEAM01")], routes: routes()))
        await #expect(throws: DispatcherError.self) { try await worker.run(untilIdle: true) }
        #expect(try await harness.store.campaign(good).counters.accepted == 10)
        #expect(try await harness.log(orphan).allSatisfy { $0.status == .pending && $0.attempts == 0 })
        #expect(harness.server.stats().totals.requests == 10)
        await harness.shutdown()
    }

    @Test func anExpiredCertificatePausesItsCredentialAndOneExpiringSoonIsWarnedAbout() async throws {
        let harness = try await DispatchHarness()
        let good = try await campaign(harness, topic: DispatchHarness.topic, count: 10, prefix: "a11c")
        let old = try await campaign(harness, topic: Self.other, count: 5, prefix: "01d0")
        let now = Date()
        let set = CredentialSet(
            [
                try credential(harness, "good", team: "TESTTEAM01"),
                SendingCredential(
                    name: "old",
                    authorization: .certificate(notAfter: now.addingTimeInterval(-86_400), fingerprint: "old")),
                SendingCredential(
                    name: "soon",
                    authorization: .certificate(notAfter: now.addingTimeInterval(10 * 86_400 + 60), fingerprint: "soon")
                ),
            ],
            routes: TopicRoutes(
                byBundleID: [DispatchHarness.topic: "good", Self.other: "old", "com.example.soon": "soon"],
                fallback: nil))
        let lines = Locked([String]())
        let worker = worker(
            harness, set, logger: Logger(label: "test", sink: .custom { line in lines.withLock { $0.append(line) } }))
        do {
            _ = try await worker.run(untilIdle: true)
            Issue.record("the run ended without naming the expired certificate")
        } catch {
            guard case .stopped(.credentialsRefused(_, .badCertificate, "old")) = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(try await harness.store.campaign(good).counters.accepted == 10)
        #expect(try await harness.log(old).allSatisfy { $0.status == .pending && $0.attempts == 0 })
        #expect(harness.server.stats().totals.requests == 10, "nothing was sent with the expired certificate")
        let status = try #require(worker.credentialStatuses.first { $0.name == "old" })
        #expect(
            status.paused?.hasPrefix("certificate expired on ") == true && status.certificateDaysLeft(now: now) == -1,
            "\(status)")
        #expect(worker.credentialStatuses.first { $0.name == "soon" }?.certificateDaysLeft(now: now) == 10)
        let warnings = lines.withLock { $0 }.filter { $0.contains(#""msg":"apns.certificate_expiring""#) }
        #expect(
            warnings.count == 1 && warnings[0].contains(#""credential":"soon""#)
                && warnings[0].contains(#""days_left":10,"#), "\(warnings)")
        await harness.shutdown()
    }
}
