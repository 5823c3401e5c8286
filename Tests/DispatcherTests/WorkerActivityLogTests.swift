import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import Logging
import QueueModel
import Testing
import Threads

/// What the worker's log says about a campaign it sends through apns-mock: its start and end with counts, the
/// devices it deactivated, its connections, throughput lines, and at debug level one line per answer — each line
/// JSON a pipeline reads as it is: an RFC 3339 UTC time with milliseconds, the worker's id on every line, counts
/// and durations as numbers, ids as strings.
@Suite struct WorkerActivityLogTests {
    @Test func aCampaignIsNarratedFromStartToFinish() async throws {
        let scenario = Scenario(tokenPrefixes: [
            "dead": TokenBehaviour(respond: .unregistered),
            "bad0": TokenBehaviour(respond: .badDeviceToken),
        ])
        let harness = try await DispatchHarness(scenario: scenario, connections: 1, rate: 400)
        let good = try await harness.register(300)
        try await harness.register(7, prefix: "dead")
        try await harness.register(5, prefix: "bad0")
        let campaign = try await harness.campaign()
        let lines = Locked([String]())
        let logger = Logger(
            label: "test", minimumLevel: .debug, sink: .custom { line in lines.withLock { $0.append(line) } })
        let worker = harness.worker(logger: logger) { $0.throughputLogInterval = .milliseconds(100) }
        let summary = try await worker.run(untilIdle: true)
        await harness.shutdown()
        #expect(summary.accepted == 300)
        let log = lines.withLock { $0 }
        func named(_ message: String) -> [String] { log.filter { $0.contains(#""msg":"\#(message)""#) } }

        let started = named("campaign.started")
        #expect(started.count == 1 && started[0].contains(#""campaign.id":"\#(campaign)""#), "\(started)")
        let finished = named("campaign.finished")
        #expect(finished.count == 1, "\(finished)")
        #expect(
            finished.first.map {
                $0.contains(#""total":312,"#) && $0.contains(#""accepted":300,"#)
                    && $0.contains(#""unregistered":7,"#)
                    && $0.contains(#""rejected":5,"#) && $0.contains(#""status":"completed""#)
            } == true, "\(finished)")
        let deactivated = named("worker.devices_deactivated").compactMap { line -> Int? in
            guard let range = line.range(of: #""devices":"#) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(deactivated.reduce(0, +) == 12, "\(named("worker.devices_deactivated"))")
        #expect(!named("apns.connection_opened").isEmpty, "\(log.prefix(20))")
        #expect(!named("worker.throughput").isEmpty, "no throughput line in a run of ~0.8 s at a 0.1 s interval")
        // One debug line per answer, with the token shortened, never whole.
        let requests = named("apns.request")
        #expect(requests.count == 312, "\(requests.count)")
        #expect(!log.contains { line in good.contains { line.contains($0.hex) } }, "a whole token in the log")
        #expect(requests.contains { $0.contains(#""status":410,"#) && $0.contains(#""reason":"Unregistered""#) })

        let objects = try log.map { line in
            try #require(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let id = try #require(objects.first { $0["msg"] as? String == "worker.registered" }?["worker.id"] as? String)
        #expect(objects.allSatisfy { $0["worker.id"] as? String == id }, "a line without the worker's id")
        #expect(
            objects.allSatisfy {
                ($0["ts"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil
            }, "\(log.prefix(3))")
        let end = try #require(objects.first { $0["msg"] as? String == "campaign.finished" })
        #expect(end["campaign.id"] as? String == "\(campaign)" && end["seconds"] is Double, "\(end)")
        let throughput = try #require(objects.first { $0["msg"] as? String == "worker.throughput" })
        #expect(throughput["requests"] is Int && throughput["in_flight"] is Int, "\(throughput)")
    }

    @Test func aFailedConnectionAttemptIsLoggedCountedAndHealed() async throws {
        let scenario = Scenario(connection: ConnectionFaults(failHandshakes: [1]))
        let harness = try await DispatchHarness(scenario: scenario, connections: 2, rate: 0)
        try await harness.register(200)
        _ = try await harness.campaign()
        let lines = Locked([String]())
        let logger = Logger(label: "test", sink: .custom { line in lines.withLock { $0.append(line) } })
        let observer = MetricsObserver()
        let worker = harness.worker(logger: logger, observer: observer)
        let summary = try await worker.run(untilIdle: true)
        await harness.shutdown()
        #expect(summary.accepted == 200)
        let failed = lines.withLock { $0 }.filter { $0.contains(#""msg":"apns.connection_failed""#) }
        #expect(failed.count == 1, "\(failed)")
        #expect(failed.first?.contains(#""reason":"tls""#) == true, "\(failed)")
        #expect(observer.value(#"apnsd_apns_connect_failures_total{environment="production",reason="tls"}"#) == 1)
    }
}
