import APNs
import Foundation
import Intake
import Testing

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-12-01T09:00:00Z", 1_796_115_600.0),
        ("2026-12-01T09:00:00.250Z", 1_796_115_600.25),
        ("2026-12-01T10:30:00+01:30", 1_796_115_600.0),
        ("2026-12-01T04:00:00-05:00", 1_796_115_600.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("2000-01-01T00:00:00Z", 946_684_800.0),
        ("9999-12-31T23:59:59Z", 253_402_300_799.0),
    ])
    func valid(text: String, seconds: Double) throws {
        #expect(try Timestamp.parse(text).timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "2026-02-30T09:00:00Z",  // no such day (Foundation rolls it to 2 March)
        "2025-02-29T09:00:00Z",  // not a leap year
        "2100-02-29T00:00:00Z",
        "292278994-08-17T07:12:55Z",  // year beyond 9999
        "1999-12-31T23:59:59Z",  // before 2000
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z", "2026-12-01T23:59:60Z",
        "2026-12-01T09:00:00",  // no zone
        "2026-12-01 09:00:00Z", "2026-12-01", "next week", "", "2026-12-01T09:00:00.Z",
        "2026-12-01T09:00:00.1234567890Z", "2026-12-01T09:00:00+0100", "2026-12-01T09:00:00+24:00",
        "2026-12-01T09:00:00Zjunk", "２０２６-12-01T09:00:00Z",
    ])
    func invalid(text: String) {
        #expect(throws: IntakeError.self) { try Timestamp.parse(text) }
    }
}

@Suite struct ServiceURLTests {
    @Test(arguments: [
        "https://api.push.apple.com", "https://api.push.apple.com/", "https://127.0.0.1:2197", "https://[::1]:443",
        "HTTPS://Host:65535",
    ])
    func validBase(text: String) throws {
        #expect(try !ServiceURL.validateBase(text, setting: "apns.productionURL").hasSuffix("/"))
    }

    @Test(arguments: [
        "http://api.push.apple.com", "https://host:99999", "https://host:0", "https://host#x", "https://user:pw@host",
        "https://host/3/device", "https://host?x=1", "https://", "api.push.apple.com", "https://ho st",
        "https://host\r\n",
        "https://host:abc", "ftp://host",
    ])
    func invalidBase(text: String) {
        #expect(throws: IntakeError.self) { try ServiceURL.validateBase(text, setting: "apns.productionURL") }
    }

    @Test func proxiesMayCarryCredentialsThatAreNeverShown() throws {
        #expect(
            try ServiceURL.validateProxy("http://proxy.corp:3128", setting: "apns.proxy") == "http://proxy.corp:3128")
        #expect(
            try ServiceURL.validateProxy("https://me:s3cret@proxy.corp:8443", setting: "apns.proxy").contains("s3cret"))
        #expect(!ServiceURL.redacted("https://me:s3cret@proxy.corp:8443").contains("s3cret"))
        for bad in ["socks5://proxy:1080", "http://proxy:70000", "http://proxy#frag", "proxy:3128"] {
            #expect(throws: IntakeError.self) { try ServiceURL.validateProxy(bad, setting: "apns.proxy") }
        }
        do {
            _ = try ServiceURL.validateProxy("ftp://me:s3cret@proxy", setting: "apns.proxy")
        } catch {
            #expect(!error.description.contains("s3cret"), "the error must not echo the password: \(error)")
        }
    }
}

@Suite struct UserIDTests {
    @Test func printableUTF8UpTo256Bytes() throws {
        try UserID.validate("42")
        try UserID.validate("user:ünïcödé-✓")
        try UserID.validate(String(repeating: "u", count: 256))
        #expect(throws: IntakeError.self) { try UserID.validate(String(repeating: "u", count: 257)) }
        #expect(throws: IntakeError.self) { try UserID.validate("") }
        for control in ["a\u{0}b", "a\nb", "a\u{1b}[31m", "a\u{7f}", "a\u{85}b"] {
            #expect(throws: IntakeError.self) { try UserID.validate(control) }
        }
    }

    @Test func invalidUTF8IsRefusedNotReplaced() throws {
        #expect(try UserID.decode(Array("ok".utf8)) == "ok")
        #expect(throws: IntakeError.self) { try UserID.decode([0x61, 0xFF, 0x62]) }
        #expect(throws: IntakeError.self) { try UserID.decode([0xED, 0xA0, 0x80]) }  // a UTF-8-encoded surrogate
    }
}

@Suite struct TopicAndCollapseIDTests {
    @Test func topicsAreBundleIDs() throws {
        try Topic.validate("com.example.app")
        try Topic.validate("com.example-co.App2")
        for bad in [
            "", "com.example app", "com.example\u{1}", "com.example\u{7f}", "com..example", ".com.example",
            "com.example.",
            "com.exämple", "com/example", String(repeating: "a", count: 256),
        ] {
            #expect(throws: APNsError.self) { try Topic.validate(bad) }
        }
    }

    @Test func collapseIDsArePrintable() throws {
        _ = try CollapseID("promo-2026/12 ✓")
        for bad in ["a\r\nb", "\u{1b}", "x\u{0}"] {
            #expect(throws: APNsError.self) { try CollapseID(bad) }
        }
    }
}

@Suite struct BoundedReadTests {
    @Test func readingStopsOneByteAfterTheLimit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: path))
        #expect(try BoundedRead.file(path, limit: 100)?.count == 100)
        #expect(try BoundedRead.file(path, limit: 99) == nil)
        #expect(throws: IntakeError.self) { try BoundedRead.file(path + ".missing", limit: 10) }
    }
}

@Suite struct ConfigurationFileTests {
    @Test func nestedKeysApplyAndEveryMistakeIsNamed() throws {
        var configuration = Configuration()
        try configuration.apply(
            fileBytes: Array(
                #"{"database":"/tmp/x.sqlite","apns":{"rate":500,"proxy":"http://p:3128"},"worker":{"lease":12}}"#.utf8)
        )
        #expect(
            configuration.database == "/tmp/x.sqlite" && configuration.rate == 500 && configuration.workerLease == 12)
        #expect(configuration.proxy == .url("http://p:3128"))
        for (json, words) in [
            (#"{"apns":{"rate":true}}"#, "must be a string or a number"),
            (#"{"apns":{"rate":"lots"}}"#, "apns.rate"),
            (#"{"apns":{"conections":2}}"#, "unknown setting 'apns.conections'"),
            (#"{"apns":{"rate":1,"rate":2}}"#, "duplicate key"),
            (#"[1]"#, "not a valid JSON object"),
            (#"{"apns":{"productionURL":"https://h:99999"}}"#, "port"),
        ] {
            var other = Configuration()
            #expect {
                try other.apply(fileBytes: Array(json.utf8))
            } throws: { error in
                (error as? IntakeError)?.description.contains(words) == true
            }
        }
    }
}

@Suite struct ImportLineTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func fieldsAreParsedAndCheckedFromBytes() throws {
        #expect(try ImportLine.parse(ArraySlice("   ".utf8)) == nil)
        #expect(try ImportLine.parse(ArraySlice("# comment".utf8)) == nil)
        let full = try #require(try ImportLine.parse(ArraySlice(" \(Self.token.uppercased()) , u1 ,development".utf8)))
        #expect(full.token.hex == Self.token && full.user == "u1" && full.environment == .development)
        let bare = try #require(try ImportLine.parse(ArraySlice("\(Self.token),,".utf8)))
        #expect(bare.user == nil && bare.environment == nil)
        for bad in ["zz", "\(Self.token),u,staging", "\(Self.token),a,b,c", "\(Self.token),u\u{1b}x"] {
            #expect(throws: IntakeError.self) { try ImportLine.parse(ArraySlice(bad.utf8)) }
        }
        #expect(throws: IntakeError.self) {
            try ImportLine.parse(ArraySlice(Array(repeating: UInt8(ascii: "a"), count: 1025)))
        }
        #expect(try ImportLine.tokenOnly(ArraySlice("\(Self.token),ignored,stuff,here".utf8))?.hex == Self.token)
    }
}
