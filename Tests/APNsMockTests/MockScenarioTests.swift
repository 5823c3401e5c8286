import APNsMock
import Foundation
import TestSupport
import Testing

/// Scripted per-token behaviours (Scenario.tokens / tokenPrefixes), seen through curl.
@Suite("Mock: scripted token behaviours", .offThePool)
struct MockScenarioTests {
    static let token = Fixture.token("a1b2c3d4")

    private func harness(_ behaviour: TokenBehaviour, token: String = token) throws -> MockHarness {
        try MockHarness(scenario: Scenario(tokens: [token: behaviour]))
    }

    @Test("unregistered with a fixed timestamp: 410 {reason: Unregistered, timestamp: that}")
    func unregisteredFixed() throws {
        let mock = try harness(TokenBehaviour(respond: .unregistered, timestamp: 1_650_000_000_123))
        defer { mock.stop() }
        let response = try mock.send(try mock.push(Self.token))
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect((response.json?["timestamp"] as? NSNumber)?.int64Value == 1_650_000_000_123)
        #expect(response.json.map { Set($0.keys) } == ["reason", "timestamp"])
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
    }

    @Test("unregistered without a timestamp: the 410 timestamp is now, in milliseconds")
    func unregisteredNow() throws {
        let mock = try harness(TokenBehaviour(respond: .unregistered))
        defer { mock.stop() }
        let before = Date().timeIntervalSince1970 * 1000
        let response = try mock.send(try mock.push(Self.token))
        let after = Date().timeIntervalSince1970 * 1000
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        let timestamp = try #require((response.json?["timestamp"] as? NSNumber)?.doubleValue)
        #expect(timestamp >= before - 2000 && timestamp <= after + 2000, "\(timestamp) not in [\(before), \(after)] ms")
    }

    @Test("expiredToken: 410 ExpiredToken with a timestamp")
    func expiredToken() throws {
        let mock = try harness(TokenBehaviour(respond: .expiredToken, timestamp: 1_600_000_000_000))
        defer { mock.stop() }
        let response = try mock.send(try mock.push(Self.token))
        #expect(response.status == 410)
        #expect(response.reason == "ExpiredToken")
        #expect((response.json?["timestamp"] as? NSNumber)?.int64Value == 1_600_000_000_000)
    }

    @Test(
        "badDeviceToken and notForTopic: 400 with Apple's reasons, no timestamp",
        arguments: [
            (TokenBehaviour.Response.badDeviceToken, "BadDeviceToken"), (.notForTopic, "DeviceTokenNotForTopic"),
        ])
    func fixed400(respond: TokenBehaviour.Response, reason: String) throws {
        let mock = try harness(TokenBehaviour(respond: respond))
        defer { mock.stop() }
        let response = try mock.send(try mock.push(Self.token))
        #expect(response.status == 400)
        #expect(response.reason == reason)
        #expect(response.json?["timestamp"] == nil)
        // Other tokens are unaffected.
        #expect(try mock.send(try mock.push(Fixture.token("ff"))).status == 200)
    }

    @Test("failTimes 2 with 429: TooManyRequests twice, then 200")
    func failTimes429() throws {
        let mock = try harness(TokenBehaviour(failTimes: 2, failStatus: 429))
        defer { mock.stop() }
        let push = try mock.push(Self.token)
        let responses = try mock.send([push, push, push, push])
        #expect(responses.map(\.status) == [429, 429, 200, 200])
        #expect(responses.map(\.reason) == ["TooManyRequests", "TooManyRequests", nil, nil])
    }

    @Test("failTimes counts across connections")
    func failTimesAcrossConnections() throws {
        let mock = try harness(TokenBehaviour(failTimes: 1))
        defer { mock.stop() }
        #expect(try mock.send(try mock.push(Self.token)).status == 429)  // default failStatus
        #expect(try mock.send(try mock.push(Self.token)).status == 200)
    }

    @Test(
        "failStatus 500 and 503: InternalServerError / ServiceUnavailable, then 200",
        arguments: [
            (500, "InternalServerError"), (503, "ServiceUnavailable"),
        ])
    func failStatus5xx(status: Int, reason: String) throws {
        let mock = try harness(TokenBehaviour(failTimes: 1, failStatus: status))
        defer { mock.stop() }
        let push = try mock.push(Self.token)
        let responses = try mock.send([push, push])
        #expect(responses.map(\.status) == [status, 200])
        #expect(responses[0].reason == reason)
    }

    @Test("failTimes before a fixed answer: the failures come first")
    func failThenUnregistered() throws {
        let mock = try harness(
            TokenBehaviour(respond: .unregistered, timestamp: 1_700_000_000_000, failTimes: 1, failStatus: 503))
        defer { mock.stop() }
        let push = try mock.push(Self.token)
        #expect(try mock.send([push, push]).map(\.status) == [503, 410])
    }

    @Test("delayMs 300: the answer takes at least 0.3 s; an undelayed token on the same connection does not wait")
    func delay() throws {
        let mock = try harness(TokenBehaviour(delayMs: 300))
        defer { mock.stop() }
        let responses = try mock.send([try mock.push(Self.token), try mock.push(Fixture.token("77"))])
        #expect(responses.map(\.status) == [200, 200])
        #expect(responses[0].serverSeconds >= 0.3, "\(responses[0])")
        #expect(responses[1].serverSeconds < 0.3, "\(responses[1].serverSeconds)")
    }

    @Test("a prefix rule applies to tokens with that prefix; an exact token rule wins over it; the longest prefix wins")
    func prefixes() throws {
        let exact = "dead" + String(Fixture.token("0").dropFirst(4))
        let prefixed = "dead" + String(Fixture.token("1").dropFirst(4))
        let longer = "deadbeef" + String(Fixture.token("2").dropFirst(8))
        let other = Fixture.token("3")
        let mock = try MockHarness(
            scenario: Scenario(
                tokens: [exact: TokenBehaviour(respond: .unregistered, timestamp: 1_700_000_000_000)],
                tokenPrefixes: [
                    "dead": TokenBehaviour(respond: .badDeviceToken), "deadbeef": TokenBehaviour(respond: .notForTopic),
                ]))
        defer { mock.stop() }
        let authorization = try Fixture.authorization()
        let responses = try mock.send(
            [exact, prefixed, longer, other, prefixed.uppercased()].map {
                CurlRequest.push(token: $0, authorization: authorization)
            })
        #expect(responses.map(\.status) == [410, 400, 400, 200, 400])
        #expect(
            responses.map(\.reason) == [
                "Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic", nil, "BadDeviceToken",
            ])
    }

    @Test("scripted answers need a valid provider token first")
    func authFirst() throws {
        let mock = try harness(TokenBehaviour(respond: .unregistered))
        defer { mock.stop() }
        let response = try mock.send(CurlRequest.push(token: Self.token, authorization: nil))
        #expect(response.status == 403)
        #expect(response.reason == "MissingProviderToken")
    }
}

@Suite("Scenario.load", .offThePool)
struct ScenarioLoadTests {
    private func load(_ json: String) throws -> (Result<Scenario, MockError>, String) {
        let directory = try TempDirectory("scenario")
        defer { directory.remove() }
        let path = try directory.write("scenario.json", json)
        do {
            return (.success(try Scenario.load(path: path)), path)
        } catch let error as MockError {
            return (.failure(error), path)
        }
    }

    @Test("a valid file loads, tokens lowercased")
    func valid() throws {
        let (result, _) = try load(
            #"""
            {"tokens": {"ABCD": {"respond": "unregistered", "timestamp": 5}},
             "tokenPrefixes": {"ee": {"failTimes": 2, "failStatus": 503, "delayMs": 10}},
             "connection": {"goawayAfter": 3, "maxConcurrentStreams": 10}}
            """#)
        let scenario = try result.get()
        #expect(scenario.tokens["abcd"] == TokenBehaviour(respond: .unregistered, timestamp: 5))
        #expect(scenario.tokenPrefixes["ee"] == TokenBehaviour(failTimes: 2, failStatus: 503, delayMs: 10))
        #expect(scenario.connection == ConnectionFaults(goawayAfter: 3, maxConcurrentStreams: 10))
    }

    @Test("failStatus 404 is a bad scenario with a clear message")
    func failStatus404() throws {
        let (result, _) = try load(#"{"tokens": {"abcd": {"failTimes": 1, "failStatus": 404}}}"#)
        guard case .failure(.badScenario(let message)) = result else {
            Issue.record("expected badScenario, got \(result)")
            return
        }
        #expect(message.contains("failStatus"))
        #expect(message.contains("404"))
        #expect(message.contains("abcd"))
        #expect(!"\(MockError.badScenario(message))".contains("\n"))
    }

    @Test(
        "malformed JSON is a bad scenario naming the file",
        arguments: [#"{"tokens": "#, "not json", #"{"tokens": {"abcd": {"respond": "maybe"}}}"#, #"{"tokens": []}"#])
    func malformed(json: String) throws {
        let (result, path) = try load(json)
        guard case .failure(.badScenario(let message)) = result else {
            Issue.record("expected badScenario, got \(result)")
            return
        }
        #expect(message.contains(path), "\(message)")
    }

    @Test("a non-hex token is refused")
    func nonHexToken() throws {
        let (result, _) = try load(#"{"tokens": {"xyz": {}}}"#)
        guard case .failure(.badScenario(let message)) = result else {
            Issue.record("expected badScenario, got \(result)")
            return
        }
        #expect(message.contains("xyz"))
    }

    @Test("broadcasts by bundle id load; a bad failStatus or bundle id is a bad scenario naming it")
    func broadcasts() throws {
        let (valid, _) = try load(
            #"{"broadcasts": {"com.example.app": {"failTimes": 2, "failStatus": 500, "delayMs": 5}}}"#)
        #expect(
            try valid.get().broadcasts == [
                "com.example.app": BroadcastBehaviour(failTimes: 2, failStatus: 500, delayMs: 5)
            ])
        for (json, named) in [
            (#"{"broadcasts": {"com.example.app": {"failStatus": 404}}}"#, "com.example.app"),
            (#"{"broadcasts": {"a/b": {}}}"#, "a/b"),
            (#"{"broadcasts": {"com.example.app": {"failTimes": -1}}}"#, "failTimes"),
        ] {
            let (result, _) = try load(json)
            guard case .failure(.badScenario(let message)) = result else {
                Issue.record("expected badScenario for \(json), got \(result)")
                continue
            }
            #expect(message.contains(named), "\(message)")
        }
    }

    @Test("a missing file names the file")
    func missingFile() {
        #expect(throws: MockError.badScenario("cannot read scenario file /nonexistent/scenario.json")) {
            try Scenario.load(path: "/nonexistent/scenario.json")
        }
    }
}
