import APNs
import Foundation
import QueueModel
@testable import Store

/// A fresh temporary folder for one test's database files.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var databasePath: String { url.appendingPathComponent("apnsd.sqlite").path }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A fixed clock origin, so that every time in a test is explicit.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// A distinct, valid 64-hex-character token for `n`.
func token(_ n: Int, prefix: UInt8 = 0xab) -> DeviceToken {
    let digits = Array("0123456789abcdef".utf8)
    var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: 64)
    bytes[0] = digits[Int(prefix >> 4)]
    bytes[1] = digits[Int(prefix & 0xF)]
    var value = UInt64(n)
    var index = 63
    while value > 0 {
        bytes[index] = digits[Int(value & 0xF)]
        value >>= 4
        index -= 1
    }
    return try! DeviceToken(String(decoding: bytes, as: UTF8.self))
}

let topic = "com.example.app"
let otherTopic = "com.example.other"

func payload(_ text: String = "hello") -> Payload {
    try! Payload(json: #"{"aps":{"alert":"\#(text)"}}"#)
}

func bulk(_ audience: Audience, topic: String = topic, at scheduledAt: Date? = nil) -> CampaignSpec {
    CampaignSpec(kind: .bulk, audience: audience, content: try! NotificationContent(bundleID: topic, payload: payload()), scheduledAt: scheduledAt)
}

func single(_ token: DeviceToken, environment: Environment? = nil) -> CampaignSpec {
    CampaignSpec.single(to: token, environment: environment, content: try! NotificationContent(bundleID: topic, payload: payload("single")))
}

extension Store {
    /// Runs raw SQL (tests only: to set up states the API does not offer, e.g. many inactive devices at once).
    func execute(_ sql: String) throws {
        try read { db in try db.execute(sql) }
    }

    /// The first column of the first row of `sql` as an integer.
    func scalar(_ sql: String) throws -> Int64? {
        try read { db in try db.prepare(sql).scalarInt64() }
    }

    /// Whether the actor's code runs on the executor's own thread.
    func runsOnExecutorThread() -> Bool { executor.isCurrentThread }

    /// Registers `count` devices for `topic` (tokens `first..<first+count`) in one import.
    func registerDevices(_ range: Range<Int>, topic: String = topic, environment: Environment = .production,
                         user: @Sendable (Int) -> String? = { _ in nil }, now: Date = t0) throws {
        try importDevices(range.map { DeviceRegistration(token: token($0), topic: topic, environment: environment, user: user($0)) },
                          now: now)
    }

    /// Expands every due campaign completely.
    func expandAll(now: Date, pageSize: Int = 1000) throws {
        while try expandDueCampaigns(now: now, pageSize: pageSize, maxPages: 100).moreRemaining {}
    }

    /// Every log entry matching `filter`.
    func allLog(_ filter: LogFilter = LogFilter()) throws -> [LogEntry] {
        var entries: [LogEntry] = []
        while true {
            let page = try log(filter, after: entries.last?.id, limit: 500)
            entries += page
            if page.count < 500 { return entries }
        }
    }
}
