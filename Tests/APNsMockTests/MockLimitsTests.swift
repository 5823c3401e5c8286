import APNsMock
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The simulator's limits, one at a time, in process: timeouts, header sizes, resets, what the stats reveal,
/// where it listens.
@Suite("Mock: limits", .offThePool)
struct MockLimitsTests {
    static let token = Fixture.token("1e")

    // MARK: Timeouts

    @Test("a connection that never starts TLS is dropped after the handshake timeout")
    func handshakeTimeout() throws {
        let mock = try MockHarness(handshakeTimeout: 0.5)
        defer { mock.stop() }
        let fd = try LoopbackSocket.connect(port: mock.port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let started = Date()
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)
        let seconds = Date().timeIntervalSince(started)
        #expect(n == 0, "expected EOF, got \(n) (errno \(errno))")
        #expect(seconds >= 0.4 && seconds < 5, "\(seconds) s")
        // A client that does its handshake is not affected.
        #expect(try mock.send(try mock.push(Self.token)).status == 200)
    }

    @Test("a connection that carries no request is sent GOAWAY IdleTimeout after the idle timeout, then closed")
    func idleTimeout() throws {
        let mock = try MockHarness(idleTimeout: 1)
        defer { mock.stop() }
        let connection = try RawH2(port: mock.port)
        let started = Date()
        let goaway = connection.frame(timeout: 10) { $0.type == H2Frame.goaway }
        let seconds = Date().timeIntervalSince(started)
        let frame = try #require(goaway, "no GOAWAY")
        #expect(frame.errorCode == H2Frame.noError)
        #expect(String(decoding: frame.payload.dropFirst(8), as: UTF8.self) == #"{"reason":"IdleTimeout"}"#)
        #expect(seconds >= 0.9 && seconds < 5, "\(seconds) s")
        #expect(connection.framesUntilClosed(timeout: 5) != nil, "the connection stayed open")
        #expect(try mock.stats().connections.first?.goawaySent == true)
    }

    @Test("a request that never finishes does not keep a connection from idling out")
    func idleWithHalfOpenStream() throws {
        let mock = try MockHarness(idleTimeout: 1)
        defer { mock.stop() }
        let connection = try RawH2(port: mock.port)
        let block = connection.encoder.block(RawH2.push(token: Self.token, authorization: mock.authorization))
        try connection.send(H2Frame.headers(stream: 1, block: block, endStream: false))
        #expect(connection.frame(timeout: 10) { $0.type == H2Frame.goaway } != nil)
        #expect(connection.framesUntilClosed(timeout: 5) != nil, "the connection stayed open")
    }

    @Test("a connection sending a request every 0.3 s outlives a 1 s idle timeout")
    func busyConnectionStays() throws {
        let mock = try MockHarness(idleTimeout: 1)
        defer { mock.stop() }
        let connection = try RawH2(port: mock.port)
        var stream: UInt32 = 1
        for _ in 0..<8 {
            try connection.send(
                connection.pushFrames(stream: stream, token: Self.token, authorization: mock.authorization))
            let answer = connection.frame(timeout: 5) { $0.type == H2Frame.headers || $0.type == H2Frame.goaway }
            #expect(answer?.isStatus200 == true)
            stream += 2
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(!connection.closed)
    }

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
        for _ in 0..<1500 {
            config += "output = \"/dev/null\"\nurl = \"https://127.0.0.1:\(mock.port)/3/device/\(Self.token)\"\n"
        }
        let path = try mock.directory.write("curl.config", config)
        let result = try ProcessRunner.run("curl", ["-K", path], in: mock.directory, timeout: 120)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1500, "\(result.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("200 ") }, "\(Set(lines))")
        #expect(
            lines.filter { $0.hasSuffix(" 1") }.count == 1,
            "curl reconnected: \(lines.filter { $0.hasSuffix(" 1") }.count) connections")
        let busy = try mock.busyConnections()
        #expect(busy.map(\.requests) == [1500])
        #expect(busy.allSatisfy { !$0.goawaySent })
    }

    // MARK: Statistics

    @Test("GET /_mock/stats lists no device token unless statsTokens is on; the totals stay")
    func statsTokensOff() throws {
        let mock = try MockHarness(statsTokens: false)
        defer { mock.stop() }
        let responses = try mock.send([try mock.push(Self.token), try mock.push(Self.token)])
        #expect(responses.map(\.status) == [200, 200])
        let response = try mock.send(CurlRequest(method: "GET", path: "/_mock/stats"))
        let json = try #require(response.json)
        #expect(json["tokens"] == nil)
        #expect(!response.bodyText.contains(Self.token))
        let stats = try mock.stats()
        #expect(stats.tokens.isEmpty && stats.listedTokens == nil)
        #expect(stats.totals.tokensAcceptedTwice == 1)
        #expect(stats.totals.requests == 2)
        #expect(mock.server.stats().tokens.isEmpty)
        #expect(mock.server.stats().totals.tokensAcceptedTwice == 1)
    }

    @Test("with statsTokens the per-token counts are listed")
    func statsTokensOn() throws {
        let mock = try MockHarness(statsTokens: true)
        defer { mock.stop() }
        _ = try mock.send(try mock.push(Self.token))
        let response = try mock.send(CurlRequest(method: "GET", path: "/_mock/stats"))
        #expect((response.json?["tokens"] as? [String: Any])?[Self.token] != nil)
        #expect(try mock.stats().count(token: Self.token, status: 200) == 1)
    }

    @Test("a second GET /_mock/stats on a connection while one is being answered: 429")
    func oneStatsAtATime() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        // A tiny window: the first stats body cannot be sent whole until the client opens it.
        let connection = try RawH2(port: mock.port, settings: [(0x4, 16)])
        let get: [(String, String)] = [
            (":method", "GET"), (":scheme", "https"), (":authority", "127.0.0.1"), (":path", "/_mock/stats"),
        ]
        try connection.send(
            H2Frame.headers(stream: 1, block: connection.encoder.block(get), endStream: true)
                + H2Frame.headers(stream: 3, block: connection.encoder.block(get), endStream: true))
        var statuses: [UInt32: Bool] = [:]
        while statuses.count < 2, let frame = connection.frame(timeout: 5, where: { $0.type == H2Frame.headers }) {
            statuses[frame.stream] = frame.isStatus200
        }
        #expect(statuses == [1: true, 3: false])
    }

    // MARK: Where it listens

    @Test("the default configuration listens on loopback only")
    func loopbackByDefault() throws {
        let mock = try MockHarness()
        defer { mock.stop() }
        #expect(ListeningSockets.accepting(port: mock.port) == ["127.0.0.1"])
    }
}
