import APNs
import APNsMock
import Foundation
@testable import HTTP2Transport
import Testing
import TestSupport

extension TransportIO {
    /// The per-connection rate: the strict bound on the moments libcurl put requests on the wire, and the
    /// simulator's own sliding-window count as a cross-check.
    @Suite struct ThrottleTests {
        @Test(.measuresTime, arguments: [200, 1_500])
        func everySlidingSecondHoldsAtMostRatePlusOnePercent(rate: Int) async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let count = rate * 3
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: rate), recordingSends: true)
            let start = ContinuousClock.now
            let results = await sendMany(count, try mock.request(), via: connection.send)
            let elapsed = ContinuousClock.now - start
            await connection.shutdown(timeout: .seconds(5))
            #expect(results.statuses == [200: count], "\(results.failures)")

            let bound = Int(Double(rate) * 1.01) + 1
            let sends = connection.sendTimes
            #expect(sends.count >= count)
            let worst = ThrottleModelTests.maxInAnySecond(sends)
            #expect(worst <= bound, "libcurl sent \(worst) requests in one second (bound \(bound))")
            #expect(worst <= Throttle(ratePerSecond: rate, now: 0).maximumPerSecond!)
            #expect(worst >= rate * 8 / 10, "and the rate is used: \(worst)")
            #expect(elapsed >= .seconds(2.9), "\(elapsed)")

            // The simulator counts on arrival, per connection. On a quiet machine it sees the same bound
            // (measured: 201–202 at 200/s, 1501–1504 at 1500/s); when its thread is starved (two test runs at
            // once on 2 cores) it reads late and counts requests bunched by up to ~50 ms (210 at 200/s).
            // So a looser check here: it still fails for a broken throttle (unthrottled does > 10× the rate).
            let server = mock.server.stats().connections.map(\.maxRequestsPerSecond).max() ?? 0
            #expect(server <= rate * 110 / 100 + 2, "the simulator saw \(server) in one second")
        }
    }
}
