import APNsMock
import Foundation
import TestSupport
import Testing

/// Connection faults and per-connection token rules, driven by one curl process that reuses one HTTP/2 connection.
@Suite("Mock: connections", .offThePool)
struct MockConnectionTests {
    static let token = Fixture.token("c0ffee")

    private func pushes(_ mock: MockHarness, _ count: Int) throws -> [CurlRequest] {
        let authorization = try Fixture.authorization()
        return (0..<count).map { _ in CurlRequest.push(token: Self.token, authorization: authorization) }
    }

    @Test("without faults, curl keeps one connection for all its requests")
    func reuse() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let responses = try mock.send(try pushes(mock, 5))
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200])
        #expect(responses.map(\.connects) == [1, 0, 0, 0, 0])
        let busy = try mock.busyConnections()
        #expect(busy.map(\.requests) == [5])
        #expect(busy.allSatisfy { !$0.goawaySent })
    }

    @Test("stop may be called twice: the second call returns at once")
    func stopTwice() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        #expect(try mock.send(try pushes(mock, 1)).map(\.status) == [200])
        mock.server.stop()
        mock.server.stop()
    }

    @Test("goawayAfter 2: GOAWAY after exactly 2 answers; later requests go on new connections")
    func goaway() throws {
        let mock = try MockHarness(scenario: Scenario(connection: ConnectionFaults(goawayAfter: 2)))
        defer { mock.stop() }
        let responses = try mock.send(try pushes(mock, 5))
        // The first two are answered on the first connection.
        #expect(responses[0].status == 200 && responses[0].connects == 1)
        #expect(responses[1].status == 200 && responses[1].connects == 0)
        // The third cannot use the first connection any more: a new one, or a failure at the client.
        #expect(responses[2].connects == 1 || responses[2].exitCode != 0, "\(responses[2])")
        for response in responses.dropFirst(2) {
            #expect(response.status == 200 || response.exitCode != 0)
        }
        let busy = try mock.busyConnections()
        let first = try #require(busy.first)
        #expect(first.id == 1)
        #expect(first.goawaySent)
        #expect(first.requests == 2)
        #expect(!first.open)
        #expect(busy.count >= 2, "later requests should have used a new connection: \(busy)")
        // Every connection that answered its 2nd request said goodbye; none answered more than 2.
        #expect(busy.allSatisfy { $0.requests <= 2 })
        #expect(busy.filter { $0.requests == 2 }.allSatisfy { $0.goawaySent })
        #expect(busy.map(\.requests).reduce(0, +) == responses.filter { $0.status == 200 }.count)
    }

    @Test("closeAfter 3: the 3rd request fails at the client and the connection closes; curl reconnects for the rest")
    func closeAfter() throws {
        let mock = try MockHarness(
            scenario: Scenario(connection: ConnectionFaults(closeAfter: 3, faultyConnections: 1)))
        defer { mock.stop() }
        let responses = try mock.send(try pushes(mock, 5))
        #expect(responses.map(\.status) == [200, 200, 0, 200, 200])
        #expect(responses[2].exitCode != 0)
        #expect(responses.enumerated().filter { $0.offset != 2 }.allSatisfy { $0.element.exitCode == 0 })
        #expect(responses[3].connects == 1)
        let connections = try mock.stats().connections
        let first = try #require(connections.first { $0.id == 1 })
        #expect(!first.open)
        #expect(first.requests == 2)  // the 3rd arrived but was never answered
        #expect(!first.goawaySent)
    }

    @Test("faultyConnections 1: only the first connection gets the fault; the second carries many requests unharmed")
    func faultyConnections() throws {
        let mock = try MockHarness(
            scenario: Scenario(connection: ConnectionFaults(closeAfter: 2, faultyConnections: 1)))
        defer { mock.stop() }
        let responses = try mock.send(try pushes(mock, 6))
        #expect(responses.map(\.status) == [200, 0, 200, 200, 200, 200])
        #expect(responses.map(\.connects) == [1, 0, 1, 0, 0, 0])
        let busy = try mock.busyConnections()
        #expect(busy.map(\.requests) == [1, 4])
        #expect(busy.map(\.id) == [1, 2])
    }

    @Test("the same fault without faultyConnections hits every connection")
    func everyConnectionFaulty() throws {
        let mock = try MockHarness(scenario: Scenario(connection: ConnectionFaults(closeAfter: 2)))
        defer { mock.stop() }
        let responses = try mock.send(try pushes(mock, 4))
        #expect(responses.map(\.status) == [200, 0, 200, 0])
        #expect(try mock.busyConnections().map(\.requests) == [1, 1])
    }

    // MARK: Provider token switches

    @Test(
        "switching to a second valid token on one connection sooner than tokenUpdateInterval: 429 TooManyProviderTokenUpdates, then the connection is spoiled for every token until the client reconnects"
    )
    func tooManyTokenUpdates() throws {
        let mock = try MockHarness(tokenUpdateInterval: 3600)
        defer { mock.stop() }
        let first = try Fixture.authorization(age: 120)
        let second = try Fixture.authorization(age: 0)
        #expect(first != second)
        let responses = try mock.send([
            CurlRequest.push(token: Self.token, authorization: first),
            CurlRequest.push(token: Self.token, authorization: second),
            CurlRequest.push(token: Self.token, authorization: first),
            CurlRequest.push(token: Self.token, authorization: second),
            CurlRequest.push(token: Self.token, authorization: nil),
        ])
        #expect(responses.map(\.status) == [200, 429, 429, 429, 429])
        #expect(responses.dropFirst().allSatisfy { $0.reason == "TooManyProviderTokenUpdates" })
        #expect(responses.map(\.connects) == [1, 0, 0, 0, 0])
        let busy = try mock.busyConnections()
        #expect(busy.count == 1)
        #expect(busy.first?.requests == 5)
        #expect(busy.first?.distinctProviderTokens == 2)
        #expect(try mock.stats().totals.reasons["TooManyProviderTokenUpdates"] == 4)
        // A fresh connection starts clean: either token is fine there.
        #expect(try mock.send(CurlRequest.push(token: Self.token, authorization: second)).status == 200)
        #expect(try mock.send(CurlRequest.push(token: Self.token, authorization: first)).status == 200)
    }

    @Test("with tokenUpdateInterval 0 the switch is accepted")
    func tokenSwitchAllowed() throws {
        let mock = try MockHarness(tokenUpdateInterval: 0)
        defer { mock.stop() }
        let responses = try mock.send([
            CurlRequest.push(token: Self.token, authorization: try Fixture.authorization(age: 120)),
            CurlRequest.push(token: Self.token, authorization: try Fixture.authorization(age: 0)),
        ])
        #expect(responses.map(\.status) == [200, 200])
        #expect(responses.map(\.connects) == [1, 0])
        #expect(try mock.busyConnections().map(\.distinctProviderTokens) == [2])
    }

    // MARK: SETTINGS

    @Test(
        "singleStreamUntilAuthorized: SETTINGS_MAX_CONCURRENT_STREAMS is 1, then the configured value after the first authorized request"
    )
    func singleStreamUntilAuthorized() throws {
        let mock = try MockHarness(
            scenario: Scenario(connection: ConnectionFaults(maxConcurrentStreams: 7, singleStreamUntilAuthorized: true))
        )
        defer { mock.stop() }
        // One request: a second one sent before the server's SETTINGS arrive would exceed the limit of 1 and be refused.
        let run = try NGHTTP.run(mock, requests: 1, authorization: try Fixture.authorization(), token: Self.token)
        #expect(run.statuses == [200], "\(run.output)")
        #expect(run.maxConcurrentStreams == [1, 7], "\(run.output)")
    }

    @Test("singleStreamUntilAuthorized: an authorized channel management request lifts the limit too")
    func singleStreamLiftedByChannelRequest() throws {
        let mock = try MockHarness(
            scenario: Scenario(connection: ConnectionFaults(maxConcurrentStreams: 7, singleStreamUntilAuthorized: true))
        )
        defer { mock.stop() }
        let run = try NGHTTP.run(
            mock, requests: 1, authorization: try Fixture.authorization(), token: Self.token,
            getPath: "/1/apps/com.example.app/all-channels")
        #expect(run.statuses == [200], "\(run.output)")
        #expect(run.maxConcurrentStreams == [1, 7], "\(run.output)")
    }

    @Test("singleStreamUntilAuthorized stays at 1 while requests are not authorized")
    func singleStreamWhileUnauthorized() throws {
        let mock = try MockHarness(
            scenario: Scenario(connection: ConnectionFaults(maxConcurrentStreams: 7, singleStreamUntilAuthorized: true))
        )
        defer { mock.stop() }
        let run = try NGHTTP.run(mock, requests: 1, authorization: nil, token: Self.token)
        #expect(run.statuses == [403], "\(run.output)")
        #expect(run.maxConcurrentStreams == [1], "\(run.output)")
    }

    @Test("maxConcurrentStreams alone is announced in the first SETTINGS")
    func maxConcurrentStreams() throws {
        let mock = try MockHarness(scenario: Scenario(connection: ConnectionFaults(maxConcurrentStreams: 7)))
        defer { mock.stop() }
        let run = try NGHTTP.run(mock, requests: 1, authorization: try Fixture.authorization(), token: Self.token)
        #expect(run.statuses == [200], "\(run.output)")
        #expect(run.maxConcurrentStreams == [7], "\(run.output)")
    }
}
