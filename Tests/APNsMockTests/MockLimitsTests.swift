import APNsMock
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The simulator's limits, one at a time, in process: header sizes, resets, the stats endpoint.
@Suite("Mock: limits")
struct MockLimitsTests {
    static let token = Fixture.token("1e")

    // MARK: Authorization

    @Test("an authorization header over 4096 bytes is 403 InvalidProviderToken; one of 4096 is judged as usual")
    func oversizedAuthorization() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let oversized = "bearer " + String(repeating: "x", count: 16_000)
        let exact = "bearer " + String(repeating: "x", count: 4096 - 7)
        let responses = try mock.send([
            CurlRequest.push(token: Self.token, authorization: oversized),
            CurlRequest.push(token: Self.token, authorization: exact),
            try mock.push(Self.token),
        ])
        #expect(responses.map(\.status) == [403, 403, 200])
        #expect(responses.map(\.reason) == ["InvalidProviderToken", "InvalidProviderToken", nil])
        #expect(responses.map(\.connects) == [1, 0, 0])
    }

    @Test("70 distinct valid tokens on one connection (more than the cache holds) keep the token-switch rule")
    func verdictCacheEviction() throws {
        let mock = try MockHarness(tokenUpdateInterval: 0)
        defer { mock.stop() }
        let tokens = try (0..<70).map { try Fixture.authorization(age: Double($0)) }
        // The first again after 69 others have pushed it out of the cache: verified again, still good.
        let requests = (tokens + [tokens[0], tokens[69]]).map { CurlRequest.push(token: Self.token, authorization: $0) }
        let responses = try mock.send(requests)
        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.status))")
        #expect(responses.map(\.connects).reduce(0, +) == 1)
        #expect(try mock.busyConnections().first?.distinctProviderTokens == 71)
    }

    // MARK: Resets

    @Test("curl's 1,500 requests on one connection, each stream reset by libcurl after its answer: never cut off")
    func libcurlResets() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        let body = try mock.directory.write("body.json", #"{"aps":{"alert":"hi"}}"#)
        var config = """
        http2
        silent
        cacert = "\(mock.caPath)"
        max-time = 60
        request = "POST"
        header = "authorization: \(mock.authorization)"
        header = "apns-topic: com.example.app"
        header = "apns-push-type: alert"
        data-binary = "@\(body)"
        write-out = "%{http_code} %{num_connects}\\n"

        """
        for _ in 0..<1500 { config += "output = \"/dev/null\"\nurl = \"https://127.0.0.1:\(mock.port)/3/device/\(Self.token)\"\n" }
        let path = try mock.directory.write("curl.config", config)
        let result = try ProcessRunner.run("curl", ["-K", path], in: mock.directory, timeout: 120)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1500, "\(result.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("200 ") }, "\(Set(lines))")
        #expect(lines.filter { $0.hasSuffix(" 1") }.count == 1, "curl reconnected: \(lines.filter { $0.hasSuffix(" 1") }.count) connections")
        let busy = try mock.busyConnections()
        #expect(busy.map(\.requests) == [1500])
        #expect(busy.allSatisfy { !$0.goawaySent })
    }

    // MARK: Statistics

    @Test("a second GET /_mock/stats on a connection while one is being answered: 429")
    func oneStatsAtATime() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        // A tiny window: the first stats body cannot be sent whole until the client opens it.
        let connection = try RawH2(port: mock.port, settings: [(0x4, 16)])
        let get: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":authority", "127.0.0.1"), (":path", "/_mock/stats")]
        try connection.send(H2Frame.headers(stream: 1, block: connection.encoder.block(get), endStream: true)
                            + H2Frame.headers(stream: 3, block: connection.encoder.block(get), endStream: true))
        var statuses: [UInt32: Bool] = [:]
        while statuses.count < 2, let frame = connection.frame(timeout: 5, where: { $0.type == H2Frame.headers }) {
            statuses[frame.stream] = frame.isStatus200
        }
        #expect(statuses == [1: true, 3: false])
    }
}
