import CLITestSupport
import Foundation
import TestSupport
import Testing

/// What an attacker or a careless operator feeds apnsd is refused before anything is written: exit 64, one
/// line on stderr, and the database file byte for byte as it was.
@Suite struct HostileInputTests {
    static let topic = "com.example.cli"
    static let good = #"{"aps":{"alert":"hi"}}"#

    func prepared() async throws -> CLI {
        let cli = try CLI()
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic, "--user", "u1").status == 0)
        try #require(await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.good).status == 0)
        return cli
    }

    /// The database's files and their bytes (the -shm index is not data, and is left out).
    func files(_ cli: CLI) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-journal"] {
            let path = cli.database + suffix
            if FileManager.default.fileExists(atPath: path) {
                result[suffix] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return result
    }

    /// A payload file with these exact bytes.
    static func payloadFile(_ cli: CLI, _ bytes: [UInt8]) throws -> String {
        let path = cli.directory.appendingPathComponent("payload-\(UUID().uuidString).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return "@" + path
    }

    enum Case: CaseIterable, Sendable {
        case topicWithSOH, topicWithDEL, topicWithSpace, collapseIDWithCRLF, collapseIDWithESC
        case payloadInvalidUTF8, payloadWithBOM, payloadDuplicateKeys, payloadApsNotObject, payloadNestedDuplicate
        case atFebruary30, atYear292278994, atWithoutZone
        case userTooLong, userWithEscape, userInCampaignWithNewline
        case productionURLBadPort, productionURLFragment, developmentURLUserinfo, productionURLPath, proxySocks,
            defaultTopicWithSlash
        case keyIdTooShort

        func arguments(_ cli: CLI) throws -> [String] {
            let t = HostileInputTests.topic
            let good = HostileInputTests.good
            let token = Tokens.hex(1)
            func send(_ extra: [String], payload: String = good) -> [String] {
                ["send", token, "--topic", t, "--payload", payload] + extra
            }
            switch self {
            case .topicWithSOH: return ["send", token, "--topic", "com.example\u{01}", "--payload", good]
            case .topicWithDEL: return ["send", token, "--topic", "com.example\u{7f}", "--payload", good]
            case .topicWithSpace: return ["send", token, "--topic", "com.example app", "--payload", good]
            case .collapseIDWithCRLF: return send(["--collapse-id", "a\r\nx-injected: 1"])
            case .collapseIDWithESC: return send(["--collapse-id", "\u{1b}[31mred"])
            case .payloadInvalidUTF8:
                return send(
                    [],
                    payload: try payloadFile(
                        cli, Array(#"{"aps":{"alert":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)))
            case .payloadWithBOM: return send([], payload: try payloadFile(cli, [0xEF, 0xBB, 0xBF] + Array(good.utf8)))
            case .payloadDuplicateKeys: return send([], payload: #"{"aps":1,"aps":{}}"#)
            case .payloadApsNotObject: return send([], payload: #"{"aps":"hello"}"#)
            case .payloadNestedDuplicate: return send([], payload: #"{"aps":{"alert":"a","alert":"b"}}"#)
            case .atFebruary30:
                return ["campaign", "create", "--all", "--topic", t, "--payload", good, "--at", "2026-02-30T09:00:00Z"]
            case .atYear292278994:
                return [
                    "campaign", "create", "--all", "--topic", t, "--payload", good, "--at", "292278994-08-17T07:12:55Z",
                ]
            case .atWithoutZone:
                return ["campaign", "create", "--all", "--topic", t, "--payload", good, "--at", "2026-12-01T09:00:00"]
            case .userTooLong:
                return ["device", "add", Tokens.hex(2), "--topic", t, "--user", String(repeating: "u", count: 100_000)]
            case .userWithEscape: return ["send", "--user", "u1\u{1b}[2J", "--topic", t, "--payload", good]
            case .userInCampaignWithNewline:
                return ["campaign", "create", "--user", "u1\nu2", "--topic", t, "--payload", good]
            case .productionURLBadPort: return send(["--production-url", "https://api.push.apple.com:99999"])
            case .productionURLFragment: return send(["--production-url", "https://api.push.apple.com#x"])
            case .developmentURLUserinfo:
                return send(["--development-url", "https://me:pw@api.sandbox.push.apple.com"])
            case .productionURLPath: return send(["--production-url", "https://api.push.apple.com/3/device"])
            case .proxySocks: return send(["--proxy", "socks5://127.0.0.1:1080"])
            case .defaultTopicWithSlash: return ["send", token, "--default-topic", "com/example", "--payload", good]
            case .keyIdTooShort:
                return [
                    "worker", "--until-idle", "--key-file", CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "--key-id",
                    "SHORT", "--team-id", "TESTTEAM01",
                ]
            }
        }
    }

    @Test(arguments: Case.allCases)
    func refusedWithExit64OneLineAndTheFileUnchanged(_ hostile: Case) async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let before = try files(cli)
        let result = try await cli.run(try hostile.arguments(cli))
        #expect(result.status == 64, "\(hostile): exit \(result.status), stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1 && lines[0].hasPrefix("apnsd: error: "), "\(hostile): \(result.stderr)")
        #expect(
            !result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F },
            "\(hostile): control characters echoed")
        #expect(!result.stderr.contains("pw@"), "\(hostile): credentials echoed")
        #expect(result.stdout.isEmpty)
        #expect(try files(cli) == before, "\(hostile) changed the database file")
    }

    @Test func importRefusesBadUserIdsLineByLineAndWritesNoneOfThem() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        var bytes = Array("\(Tokens.hex(10)),nul\u{0}byte\n".utf8)
        bytes += Array("\(Tokens.hex(11)),bad".utf8) + [0xFF, 0xFE] + Array("utf8\n".utf8)
        bytes += Array("\(Tokens.hex(12)),".utf8) + Array(repeating: UInt8(ascii: "u"), count: 100_000) + [0x0A]
        bytes += Array("\(Tokens.hex(13)),fine\n".utf8)
        let file = cli.directory.appendingPathComponent("devices.csv")
        try Data(bytes).write(to: file)
        let result = try await cli.run("device", "import", file.path, "--topic", Self.topic)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("devices.csv:1:") && result.stderr.contains("devices.csv:2:")
                && result.stderr.contains("devices.csv:3:"))
        #expect(result.stderr.contains("longer than 1024 bytes"))
        let listed = try await cli.run("device", "list", "--json").lines
        #expect(listed.count == 2, "the device from before and the one good line: \(listed)")
        #expect(listed.contains { $0.contains(Tokens.hex(13)) && $0.contains(#""user":"fine""#) })
    }

}
