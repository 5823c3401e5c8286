import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `apns-mock` command line tool, run as a separate process.
@Suite("apns-mock executable", .offThePool)
struct ApnsMockExecutableTests {
    /// The built `apns-mock`, next to the test bundle (both live in the build's bin directory).
    static let binary: String? = {
        var candidates: [URL] = []
        if let environment = ProcessInfo.processInfo.environment["APNS_MOCK_BINARY"] {
            candidates.append(URL(fileURLWithPath: environment))
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("apns-mock"))
            directory = directory.deletingLastPathComponent()
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("apns-mock"))
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("apns-mock"))
        return candidates.map(\.path).first { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isExecutableFile(atPath: path)
        }
    }()

    private func requireBinary() throws -> String {
        try #require(
            Self.binary, "apns-mock not found next to \(CommandLine.arguments[0]); build it or set APNS_MOCK_BINARY")
    }

    /// A running `apns-mock`, its output in files.
    final class Running {
        let process: ChildProcess
        let stdoutPath: String
        let stderrPath: String

        init(binary: String, arguments: [String], directory: TempDirectory) throws {
            stdoutPath = directory.path("apns-mock.out")
            stderrPath = directory.path("apns-mock.err")
            _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process = try ChildProcess(binary, arguments, stdout: .file(stdoutPath), stderr: .file(stderrPath))
        }

        var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

        /// Waits for the "listening on https://HOST:PORT" line and returns the port.
        func waitForPort(timeout: TimeInterval = 15) throws -> Int {
            let deadline = Date() + timeout
            while Date() < deadline {
                let text = stdout
                if let range = text.range(of: "listening on https://127.0.0.1:") {
                    let digits = text[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits), port > 0, text[range.upperBound...].dropFirst(digits.count).first != nil
                    {
                        return port
                    }
                }
                if !process.isRunning {
                    throw HarnessError("apns-mock exited (\(process.terminationStatus)): \(stderr)")
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            throw HarnessError("apns-mock printed no listening line: '\(stdout)' '\(stderr)'")
        }

        /// Waits for the process to end; kills it and fails after `timeout`.
        func wait(timeout: TimeInterval = 15) throws -> Int32 {
            guard process.wait(timeout: timeout) != nil else {
                throw HarnessError("apns-mock did not exit within \(timeout) s")
            }
            return process.terminationStatus
        }

        func stop() { process.stop(signal: SIGKILL) }
    }

    @Test("serves a push, then writes its stats on SIGTERM")
    func servesAndWritesStats() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let caPath = directory.path("ca.pem")
        let statsPath = directory.path("stats.json")
        let mock = try Running(
            binary: binary,
            arguments: [
                "--listen", "127.0.0.1:0", "--ca-out", caPath, "--key-file", Fixture.keyPath,
                "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--stats-out", statsPath, "--stats-tokens",
            ], directory: directory)
        defer { mock.stop() }
        let port = try mock.waitForPort()
        #expect(FileManager.default.fileExists(atPath: caPath))

        let curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        let token = Fixture.token("e1")
        let response = try curl.send(CurlRequest.push(token: token, authorization: try Fixture.authorization()))
        #expect(response.status == 200)
        #expect(isCanonicalLowercaseUUID(response.header("apns-id")))

        #expect(!FileManager.default.fileExists(atPath: statsPath))
        mock.process.terminate()  // SIGTERM
        #expect(try mock.wait() == 0, "\(mock.stderr)")
        #expect(mock.process.terminationReason == .exit)
        let data = try #require(FileManager.default.contents(atPath: statsPath), "no stats file after SIGTERM")
        let stats = try JSONDecoder().decode(MockStats.self, from: data)
        #expect(stats.totals.requests == 1)
        #expect(stats.totals.statuses == ["200": 1])
        #expect(stats.count(token: token, status: 200) == 1)
        #expect(stats.connections.filter { $0.requests > 0 }.count == 1)
    }

    @Test("without --stats-tokens the stats written on exit list no device token, and the totals stay")
    func statsWithoutTokens() throws {
        let out = try TempDirectory("exe")
        defer { out.remove() }
        let mock = try SpawnedMock(["--stats-out", out.path("stats.json")])
        defer { mock.stop() }
        let token = Fixture.token("e3")
        #expect(
            try mock.curl.send([
                CurlRequest.push(token: token, authorization: mock.authorization),
                CurlRequest.push(token: token, authorization: mock.authorization),
            ]).map(\.status) == [200, 200])
        mock.running.process.terminate()
        #expect(try mock.running.wait() == 0)
        let data = try #require(FileManager.default.contents(atPath: out.path("stats.json")))
        #expect(!String(decoding: data, as: UTF8.self).contains(token))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["tokens"] == nil)
        let stats = try JSONDecoder().decode(MockStats.self, from: data)
        #expect(stats.totals.requests == 2)
        #expect(stats.totals.tokensAcceptedTwice == 1)
        #expect(stats.tokens.isEmpty)
    }

    @Test("--help names the limits and the stats flags")
    func help() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let result = try ProcessRunner.run(binary, ["--help"], in: directory)
        #expect(result.status == 0)
        for flag in [
            "--handshake-timeout S", "--idle-timeout S", "--stats-tokens", "--no-token-stats", "127.0.0.1:2197",
            "--team KEY.p8:KEYID:TEAMID[:TOPIC,TOPIC...]", "--environment ENV", "--client-ca CA.pem",
            "TopicDisallowed", "BadCertificateEnvironment", "apns-unique-id", "--no-broadcast BUNDLE[,BUNDLE...]",
            "--max-channels N", "FeatureNotEnabled", "CannotCreateChannelConfig", "/1/apps/BUNDLE/channels",
            "/4/broadcasts/apps/BUNDLE",
        ] {
            #expect(result.stdout.contains(flag), "\(flag)")
        }
    }

    @Test("--help describes every option the parser accepts (read from MockOptions.swift's lists)")
    func helpDescribesEveryOption() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let source = try String(
            contentsOf: Fixture.keysDirectory.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Sources/apns-mock/MockOptions.swift"), encoding: .utf8)
        var names: [String] = []
        for list in ["static let valued: Set<String> = [", "static let flagNames: Set<String> = ["] {
            let start = try #require(source.range(of: list), "\(list) not found")
            let body = source[start.upperBound...].prefix { $0 != "]" }
            names += body.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) }
        }
        #expect(names.count >= 20 && names.contains("team") && names.contains("client-ca"), "\(names)")
        let help = try ProcessRunner.run(binary, ["--help"], in: directory).stdout
        for name in names {
            // Described: the option starts a line of the OPTIONS list (or, for --key, shares --cert's line).
            let described = help.split(separator: "\n").contains { line in
                let trimmed = line.drop { $0 == " " }
                return trimmed.hasPrefix("--\(name) ") || trimmed.hasPrefix("--\(name)\n") || trimmed == "--\(name)"
                    || (line.hasPrefix("  -") && line.contains(" --\(name) ")) || trimmed.hasPrefix("-h, --\(name)")
            }
            #expect(described, "--\(name) is not described in --help")
        }
    }

    @Test(
        "several --team options, --environment development and --client-ca: each team on its topics, apns-unique-id, certificate requests"
    )
    func teamsEnvironmentAndCertificates() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let secondKey = directory.path("AuthKey_TESTKEY002.p8")
        let generated = try ProcessRunner.run(
            "/usr/bin/openssl",
            [
                "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-out", secondKey,
            ], in: directory)
        #expect(generated.status == 0, "\(generated.stderr)")
        let ca = try TestCertificateAuthority(in: directory.path("pki"))
        let caPath = directory.path("ca.pem")
        let mock = try Running(
            binary: binary,
            arguments: [
                "--listen", "127.0.0.1:0", "--ca-out", caPath,
                "--team", "\(Fixture.keyPath):TESTKEY001:TESTTEAM01:com.example.app,com.example.widget",
                "--team", "\(secondKey):TESTKEY002:TESTTEAM02:com.other.app",
                "--environment", "development", "--client-ca", ca.certificatePEM,
            ], directory: directory)
        defer { mock.stop() }
        let port = try mock.waitForPort()
        let curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        let token = Fixture.token("7e")
        let first = try Fixture.authorization()
        let second = try Fixture.authorization(
            key: try SigningKey(contentsOfFile: secondKey),
            credential: try ProviderCredential(keyId: "TESTKEY002", teamId: "TESTTEAM02"))
        let firstAnswers = try curl.send([
            CurlRequest.push(token: token, topic: "com.example.widget", authorization: first),
            CurlRequest.push(token: token, topic: "com.other.app", authorization: first),
        ])
        #expect(firstAnswers.map(\.status) == [200, 400])
        #expect(firstAnswers[1].reason == "TopicDisallowed")
        #expect(isCanonicalLowercaseUUID(firstAnswers[0].header("apns-unique-id")))
        #expect(
            try curl.send(CurlRequest.push(token: token, topic: "com.other.app", authorization: second)).status == 200)
        let issued = try ca.issue(bundleID: "com.cert.app", environments: [.development])
        var presenting = curl
        presenting.clientCertificate = .p12(path: issued.p12, password: issued.password)
        let certificateAnswers = try presenting.send([
            CurlRequest.push(token: token, topic: "com.cert.app", authorization: nil),
            CurlRequest.push(token: token, topic: "com.example.app", authorization: nil),
        ])
        #expect(certificateAnswers.map(\.status) == [200, 400], "\(certificateAnswers.map(\.bodyText))")
        let production = try ca.issue(bundleID: "com.cert.app", environments: [.production])
        presenting.clientCertificate = .pem(certificate: production.certPEM, key: production.keyPEM)
        #expect(
            try presenting.send(CurlRequest.push(token: token, topic: "com.cert.app", authorization: nil)).reason
                == "BadCertificateEnvironment")
    }

    @Test(
        "--no-broadcast and --max-channels: that app gets FeatureNotEnabled, the others a channel limit; --stats-out keeps the channels"
    )
    func broadcastOptions() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let caPath = directory.path("ca.pem")
        let statsPath = directory.path("stats.json")
        let mock = try Running(
            binary: binary,
            arguments: [
                "--listen", "127.0.0.1:0", "--ca-out", caPath, "--key-file", Fixture.keyPath, "--key-id", "TESTKEY001",
                "--team-id", "TESTTEAM01", "--no-broadcast", "com.plain.app,com.plain.widget", "--no-broadcast",
                "com.third.app",
                "--max-channels", "1", "--stats-out", statsPath,
            ], directory: directory)
        defer { mock.stop() }
        let port = try mock.waitForPort()
        let curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        let auth = try Fixture.authorization()
        let answers = try curl.send([
            .createChannel(auth, bundleID: "com.plain.app"), .createChannel(auth, bundleID: "com.plain.widget"),
            .listChannels(auth, bundleID: "com.third.app"), .createChannel(auth), .createChannel(auth),
        ])
        #expect(answers.map(\.status) == [400, 400, 400, 201, 400], "\(answers.map(\.bodyText))")
        #expect(
            answers.map(\.reason) == [
                "FeatureNotEnabled", "FeatureNotEnabled", "FeatureNotEnabled", nil, "CannotCreateChannelConfig",
            ])
        let channel = try #require(answers[3].header("apns-channel-id"))
        #expect(try curl.send(.broadcast(channel, auth)).status == 200)
        mock.process.terminate()  // SIGTERM: the statistics are written
        #expect(try mock.wait() == 0, "\(mock.stderr)")
        let stats = try JSONDecoder().decode(MockStats.self, from: Data(contentsOf: URL(fileURLWithPath: statsPath)))
        #expect(stats.broadcasts(channel: channel) == 1)
        #expect(stats.channels.reasons == ["FeatureNotEnabled": 3, "CannotCreateChannelConfig": 1])
    }

    @Test("without --listen it serves 127.0.0.1:2197, loopback only (when that port is free)")
    func listensOnLoopbackByDefault() throws {
        let binary = try requireBinary()
        // Skip when something else holds the port on any address.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(2197).bigEndian)
        address.sin_addr.s_addr = INADDR_ANY
        let free =
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } == 0
        close(probe)
        guard free else { return }
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let mock = try Running(
            binary: binary,
            arguments: [
                "--key-file", Fixture.keyPath, "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01",
            ], directory: directory)
        defer { mock.stop() }
        guard let port = try? mock.waitForPort() else {
            // Another test's listener may have taken the port in between.
            #expect(mock.stderr.contains("2197"), "\(mock.stderr)")
            return
        }
        #expect(port == 2197)
        #expect(mock.stderr.isEmpty, "no warning for loopback: \(mock.stderr)")
        let accepting = ListeningSockets.accepting(port: 2197)
        #expect(accepting == ["127.0.0.1"], "accepted on \(accepting)")
    }

    @Test("a non-loopback --listen address is served with a warning on stderr")
    func warnsOffLoopback() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let mock = try Running(
            binary: binary,
            arguments: [
                "--listen", "0.0.0.0:0", "--key-file", Fixture.keyPath, "--key-id", "TESTKEY001", "--team-id",
                "TESTTEAM01",
            ], directory: directory)
        defer { mock.stop() }
        let deadline = Date() + 15
        while !mock.stdout.contains("listening"), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(mock.stdout.contains("listening on https://0.0.0.0:"))
        #expect(mock.stderr.contains("warning") && mock.stderr.contains("not loopback"), "\(mock.stderr)")
    }

    @Test("a scenario file given with --scenario is applied")
    func scenarioFile() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let token = Fixture.token("e2")
        let scenario = try directory.write(
            "scenario.json",
            #"{"tokens":{"\#(token.uppercased())":{"respond":"unregistered","timestamp":1700000000000}}}"#)
        let caPath = directory.path("ca.pem")
        let mock = try Running(
            binary: binary,
            arguments: [
                "--listen", "127.0.0.1:0", "--ca-out", caPath, "--key-file", Fixture.keyPath,
                "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--scenario", scenario,
            ], directory: directory)
        defer { mock.stop() }
        let port = try mock.waitForPort()
        let curl = Curl(baseURL: "https://127.0.0.1:\(port)", caPath: caPath, directory: directory)
        let response = try curl.send(CurlRequest.push(token: token, authorization: try Fixture.authorization()))
        #expect(response.status == 410)
        #expect(response.bodyText == #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        mock.process.terminate()
        #expect(try mock.wait() == 0, "\(mock.stderr)")
    }

    @Test("SIGTERM the moment the listening line appears stops it cleanly, stats written")
    func stopRightAfterTheListeningLine() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        // The line announces a simulator that can be stopped. A stop sent at once was lost (apns-mock ignored it
        // while its dispatch source was being armed) or killed it before --stats-out was written: 35 times in 40.
        for attempt in 0..<10 {
            let statsPath = directory.path("stats-\(attempt).json")
            let stderrPath = directory.path("stderr-\(attempt)")
            let process = try ChildProcess(
                binary,
                [
                    "--listen", "127.0.0.1:0", "--key-file", Fixture.keyPath, "--key-id", "TESTKEY001",
                    "--team-id", "TESTTEAM01", "--stats-out", statsPath,
                ], stdout: .pipe, stderr: .file(stderrPath))
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = process.readStandardOutput()
                if chunk.isEmpty { break }  // EOF: it exited
                line += chunk
            }
            process.terminate()
            guard let ended = process.wait(timeout: 15) else {
                Issue.record("attempt \(attempt): apns-mock ignored SIGTERM")
                return
            }
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            #expect(String(decoding: line, as: UTF8.self).contains("listening on https://127.0.0.1:"), "\(stderr)")
            #expect(ended == .exited(0), "attempt \(attempt): \(ended) \(stderr)")
            #expect(FileManager.default.fileExists(atPath: statsPath), "attempt \(attempt): no stats file")
        }
    }

    @Test(
        "bad usage exits 64 with a one-line error on stderr",
        arguments: [
            ["--bogus"],
            ["--listen", "nonsense", "--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01"],
            ["--key-id", "TESTKEY001", "--team-id", "TESTTEAM01"],
            ["--key-file", "k", "--key-id"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--handshake-timeout", "0"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--idle-timeout", "-1"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--idle-timeout", "soon"],
            [
                "--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--stats-tokens",
                "--no-token-stats",
            ],
            [],
            ["--team", "k:TESTKEY001"],
            ["--team", "k:TESTKEY001:TESTTEAM01:com.example.app:extra"],
            ["--team", "k:TESTKEY001:TESTTEAM01:com.example.app,,com.other.app"],
            ["--team", "k:TESTKEY001:TESTTEAM01:bad topic"],
            ["--team", "k::TESTTEAM01"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--environment", "staging"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--client-ca"],
            [
                "--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--no-broadcast",
                "com.example.app,",
            ],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--no-broadcast", "com/example"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--max-channels", "0"],
            ["--key-file", "k", "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01", "--max-channels", "10001"],
        ])
    func badUsage(arguments: [String]) throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let result = try ProcessRunner.run(binary, arguments, in: directory, timeout: 15)
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error"))
        #expect(result.stdout.isEmpty)
    }

    @Test(
        "a broken or missing key file exits 1 with a one-line error naming the problem",
        arguments: [
            ("garbage.p8", "not PEM"), ("rsa.p8", "RSA"), ("missing.p8", "missing.p8"),
        ])
    func brokenKey(file: String, problem: String) throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let keyPath = Fixture.keysDirectory.appendingPathComponent(file).path
        let result = try ProcessRunner.run(
            binary,
            [
                "--listen", "127.0.0.1:0", "--key-file", keyPath, "--key-id", "TESTKEY001", "--team-id", "TESTTEAM01",
            ], in: directory, timeout: 15)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(problem), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"))
    }

    @Test("a bad scenario file exits 1 with a one-line error naming the file")
    func badScenario() throws {
        let binary = try requireBinary()
        let directory = try TempDirectory("exe")
        defer { directory.remove() }
        let scenario = try directory.write("scenario.json", #"{"tokens":{"abcd":{"failStatus":404}}}"#)
        let result = try ProcessRunner.run(
            binary,
            [
                "--listen", "127.0.0.1:0", "--key-file", Fixture.keyPath, "--key-id", "TESTKEY001", "--team-id",
                "TESTTEAM01",
                "--scenario", scenario,
            ], in: directory, timeout: 15)
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("404"))
    }
}
