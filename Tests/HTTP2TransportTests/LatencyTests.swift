import APNs
import APNsMock
import Foundation
import TestSupport
import Testing

@testable import HTTP2Transport

extension TransportIO {
    /// What `TransportAnswer.latency` measures: from a request's first byte written to its answer, so the time a
    /// request waited in the throttle is not in it (`apnsd_apns_request_duration_seconds`).
    @Suite struct LatencyTests {
        @Test(.measuresTime) func latencyRunsFromTheFirstByteWrittenNotFromTheQueue() async throws {
            let slow = "de1a" + String(repeating: "0", count: 60)
            let mock = try MockFixture(scenario: Scenario(tokenPrefixes: ["de1a": TokenBehaviour(delayMs: 200)]))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 1))
            let request = try mock.request(device: slow)
            let start = ContinuousClock.now
            let answers = await withTaskGroup(of: TransportAnswer.self) { group in
                for _ in 0..<3 { group.addTask { await connection.exchange(request) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let elapsed = ContinuousClock.now - start
            await connection.shutdown(timeout: .seconds(5))
            #expect(answers.map(\.result.status) == [200, 200, 200])
            let latencies = answers.compactMap(\.latency)
            #expect(latencies.count == 3)
            #expect(latencies.allSatisfy { $0 >= .milliseconds(200) }, "the server's delay is in it: \(latencies)")
            // At 1/s the third waited two seconds in the throttle: counted, the latencies would add up to more than
            // the whole batch took.
            #expect(latencies.reduce(.zero, +) < elapsed, "\(latencies) in \(elapsed)")
        }

        @Test func aRequestThatNeverLeftHasNoLatency() async throws {
            let port = Ports.refusing()
            defer { close(port.descriptor) }
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: "https://127.0.0.1:\(port.port)", connectTimeout: .seconds(5), label: "refused"))
            let answer = await connection.exchange(
                APNsRequest(path: "/3/device/00", headers: [("apns-topic", "t")], body: Array("{}".utf8)))
            await connection.shutdown(timeout: .seconds(5))
            #expect(answer.result.error?.requestWasSent == false)
            #expect(answer.latency == nil)
        }
    }
}
