import Foundation
import TestSupport
import Testing

/// The README's "Scenario file" example is a working scenario: apns-mock loads it as printed and answers as its
/// table says.
@Suite(.offThePool) struct ReadmeScenarioTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The first ```json block after the "### Scenario file" heading.
    static func example() throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "### Scenario file"), "README has no 'Scenario file' section")
        let open = try #require(text.range(of: "```json\n", range: section.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    @Test func theREADMEScenarioExampleLoadsAndAnswersAsDocumented() throws {
        let binary = try #require(ApnsMockExecutableTests.binary, "apns-mock not found next to the test bundle")
        let directory = try TempDirectory("readme")
        defer { directory.remove() }
        let json = try Self.example()
        let scenario = try directory.write("scenario.json", Array(json.utf8))
        let caPath = directory.path("ca.pem")
        let mock = try ApnsMockExecutableTests.Running(
            binary: binary,
            arguments: [
                "--listen", "127.0.0.1:0", "--ca-out", caPath, "--key-file", Fixture.keyPath,
                "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--scenario", scenario,
            ], directory: directory)
        defer { mock.stop() }
        let port = try mock.waitForPort()
        let curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        let authorization = try Fixture.authorization()
        func token(_ prefix: String) -> String { prefix + String(repeating: "7", count: 64 - prefix.count) }
        let responses = try curl.send(
            [
                "5b3f1c0e9a7d4c2b8e6f0a1d3c5e7b9f2a4c6e8d0b1f3a5c7e9d2b4f6a8c0e1d", token("dead"), token("bad0"),
                token("c0de"),
                token("de1a"), "0f3e5d7c9b1a2f4e6d8c0b3a5f7e9d1c2b4a6f8e0d3c5b7a9f1e2d4c6b8a0f3e",
            ].map { CurlRequest.push(token: $0, authorization: authorization) })
        #expect(responses.map(\.status) == [410, 410, 400, 429, 200, 503], "\(responses.map(\.status)) \(mock.stderr)")
        #expect(responses[0].bodyText == #"{"reason":"Unregistered","timestamp":1764460800000}"#)
        #expect(responses[2].reason == "BadDeviceToken" && responses[3].reason == "TooManyRequests")
        // "broadcasts": each channel of com.example.scores fails twice with 429, then takes broadcasts.
        let created = try curl.send(.createChannel(authorization, bundleID: "com.example.scores"))
        let channel = try #require(created.header("apns-channel-id"), "\(created.status) \(created.bodyText)")
        let broadcasts = try curl.send(
            Array(repeating: .broadcast(channel, authorization, bundleID: "com.example.scores"), count: 3))
        #expect(broadcasts.map(\.status) == [429, 429, 200])
        let rides = try #require(
            try curl.send(.createChannel(authorization, bundleID: "com.example.rides")).header("apns-channel-id"))
        #expect(try curl.send(.broadcast(rides, authorization, bundleID: "com.example.rides")).status == 200)
    }
}
