import Foundation
import ProviderAuth
import TestSupport
import Testing

@testable import APNsMock

/// `GET /_mock/stats`, fetched with curl after traffic that curl sent.
@Suite("Mock: statistics", .offThePool)
struct MockStatsTests {
    @Test("statistics written before channels existed still decode, with empty channel counts")
    func decodesWithoutChannels() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        _ = try mock.createChannel()
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(mock.server.statsJSON())) as? [String: Any])
        #expect(object["channels"] != nil)
        object["channels"] = nil
        let older = try JSONDecoder().decode(MockStats.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.channels == MockStats.Channels())
        #expect(older.totals.statuses["201"] == 1)
    }

    @Test("30 requests on one connection: counts per connection, per token, totals and validation failures")
    func thirtyRequests() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let authorization = try Fixture.authorization()
        let accepted = Fixture.token("aa")
        let badPriority = Fixture.token("bb")
        let tooLarge = Fixture.token("cc")
        var requests: [CurlRequest] = []
        for _ in 0..<26 { requests.append(CurlRequest.push(token: accepted, authorization: authorization)) }
        for _ in 0..<2 {
            requests.append(
                CurlRequest.push(token: badPriority, authorization: authorization).with("apns-priority", "7"))
        }
        for _ in 0..<2 {
            requests.append(
                CurlRequest.push(token: tooLarge, authorization: authorization, body: alertPayload(bytes: 4097)))
        }
        let started = Date()
        let responses = try mock.send(requests)
        let elapsed = Date().timeIntervalSince(started)
        #expect(responses.filter { $0.status == 200 }.count == 26)
        #expect(responses.map(\.connects).reduce(0, +) == 1)

        let stats = try mock.stats()
        let busy = stats.connections.filter { $0.requests > 0 }
        #expect(busy.count == 1)
        let connection = try #require(busy.first)
        #expect(connection.requests == 30)
        if elapsed < 1 {
            // The whole curl run fit in one second, so every request did.
            #expect(connection.maxRequestsPerSecond == 30)
        } else {
            #expect(connection.maxRequestsPerSecond > 0 && connection.maxRequestsPerSecond <= 30)
        }
        #expect(connection.distinctProviderTokens == 1)
        #expect(connection.statuses == ["200": 26, "400": 2, "413": 2])
        #expect(!connection.goawaySent)

        #expect(stats.tokens[accepted] == ["200": 26])
        #expect(stats.tokens[badPriority] == ["400": 2])
        #expect(stats.tokens[tooLarge] == ["413": 2])
        #expect(stats.count(token: accepted, status: 200) == 26)
        #expect(stats.count(token: accepted, status: 410) == 0)

        #expect(stats.totals.requests == 30)
        #expect(stats.totals.statuses == ["200": 26, "400": 2, "413": 2])
        #expect(stats.totals.tokensAcceptedTwice == 1)
        #expect(stats.totals.derSignatures == 0)
        #expect(stats.totals.connections == stats.connections.count)

        #expect(Set(stats.validationFailures.keys) == ["BadPriority", "PayloadTooLarge"])
        #expect(stats.validationFailures["BadPriority"]?.count == 2)
        #expect(stats.validationFailures["BadPriority"]?.example.contains("7") == true)
        #expect(stats.validationFailures["PayloadTooLarge"]?.count == 2)
        #expect(stats.validationFailures["PayloadTooLarge"]?.example.contains("4097") == true)

        // The JSON served over HTTP/2 is what the server reports in process.
        #expect(mock.server.stats().totals == stats.totals)
        #expect(mock.server.stats().tokens == stats.tokens)
    }

    @Test(
        "the busiest one-second window: events 0.6 s apart hold 2, a window's edge is exclusive, a burst counts whole")
    func slidingWindow() {
        let second: UInt64 = 1_000_000_000
        var spaced = SlidingWindow()
        for time in [0, 600_000_000, 1_200_000_000] as [UInt64] { spaced.record(now: 5 * second + time) }
        #expect(spaced.maximum == 2)
        #expect(spaced.current == 2)

        var edge = SlidingWindow()
        edge.record(now: second)
        edge.record(now: 2 * second - 1)
        #expect(edge.maximum == 2, "1 ns short of a second apart: the same window")
        edge.record(now: 3 * second - 1)
        #expect(edge.maximum == 2 && edge.current == 1, "a second apart: not the same window")

        var burst = SlidingWindow()
        for index in 0..<30 { burst.record(now: UInt64(index) * 1_000_000) }
        for index in 0..<5 { burst.record(now: 10 * second + UInt64(index) * 300_000_000) }
        #expect(burst.maximum == 30)
        #expect(burst.current == 4)
    }

    /// The window's arithmetic is `slidingWindow`'s; here, that curl's spaced requests reach it on one connection.
    /// How far apart they arrive depends on the machine's load, so only the bound curl's spacing guarantees is checked.
    @Test("3 requests 1.5 s apart on one connection: the busiest one-second window holds at most 2")
    func spacedOut() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let authorization = try Fixture.authorization()
        let requests = (0..<3).map { _ in CurlRequest.push(token: Fixture.token("dd"), authorization: authorization) }
        let responses = try mock.send(requests, rate: "40/m")
        #expect(responses.map(\.status) == [200, 200, 200])
        #expect(responses.map(\.connects) == [1, 0, 0])
        let busy = try mock.busyConnections()
        #expect(busy.map(\.requests) == [3])
        #expect(
            busy.map(\.maxRequestsPerSecond).allSatisfy { (1...2).contains($0) }, "\(busy.map(\.maxRequestsPerSecond))")
    }

    @Test("a DER-signed JWT is accepted and counted in derSignatures")
    func derSignature() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let header = #"{"alg":"ES256","kid":"TESTKEY001"}"#
        let claims = #"{"iss":"TESTTEAM01","iat":\#(Int(Date().timeIntervalSince1970))}"#
        let input = Base64URL.encode(header.utf8) + "." + Base64URL.encode(claims.utf8)
        let der = try Fixture.key.signES256DER(Array(input.utf8))
        #expect(der.first == 0x30 && der.count != 64)
        let authorization = "bearer " + input + "." + Base64URL.encode(der)
        let token = Fixture.token("de")
        let responses = try mock.send([
            CurlRequest.push(token: token, authorization: authorization),
            CurlRequest.push(token: token, authorization: authorization),
        ])
        #expect(responses.map(\.status) == [200, 200])
        let stats = try mock.stats()
        #expect(stats.totals.derSignatures == 2)
        #expect(stats.totals.tokensAcceptedTwice == 1)
        // A raw r‖s token is not counted.
        _ = try mock.send(try mock.push(Fixture.token("ef")))
        #expect(try mock.stats().totals.derSignatures == 2)
    }

    @Test("tokensAcceptedTwice counts tokens, not requests, and only 200s")
    func acceptedTwice() throws {
        let mock = try MockHarness(scenario: Scenario(tokens: [Fixture.token("41"): TokenBehaviour(failTimes: 1)]))
        defer { mock.stop() }
        let authorization = try Fixture.authorization()
        let tokens = [
            Fixture.token("11"), Fixture.token("11"), Fixture.token("11"), Fixture.token("22"),
            Fixture.token("33"), Fixture.token("33"), Fixture.token("41"), Fixture.token("41"),
        ]
        let responses = try mock.send(tokens.map { CurlRequest.push(token: $0, authorization: authorization) })
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200, 429, 200])
        let stats = try mock.stats()
        #expect(stats.totals.tokensAcceptedTwice == 2)  // 11 and 33; 41 has one 429 and one 200
        #expect(stats.tokens[Fixture.token("41")] == ["429": 1, "200": 1])
    }

    @Test("a request that fails validation is a validation failure; an auth failure is not")
    func failuresKinds() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        _ = try mock.send(CurlRequest.push(token: Fixture.token("12"), authorization: nil))
        _ = try mock.send(
            CurlRequest.push(
                token: Fixture.token("12"), pushType: "newsflash", authorization: try Fixture.authorization()))
        let stats = try mock.stats()
        #expect(stats.totals.statuses == ["403": 1, "400": 1])
        #expect(Set(stats.validationFailures.keys) == ["InvalidPushType"])
        #expect(stats.validationFailures["InvalidPushType"]?.example == "newsflash")
    }
}
