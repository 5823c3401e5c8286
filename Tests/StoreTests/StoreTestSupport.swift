import APNs
import Foundation
import QueueModel
import TestSupport

@testable import PostgresStore
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
    CampaignSpec(
        kind: .bulk, audience: audience, content: try! NotificationContent(bundleID: topic, payload: payload()),
        scheduledAt: scheduledAt)
}

func single(_ token: DeviceToken, environment: Environment? = nil) -> CampaignSpec {
    CampaignSpec.single(
        to: token, environment: environment,
        content: try! NotificationContent(bundleID: topic, payload: payload("single")))
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
}

/// The database engines a store suite runs on (`@Test(arguments: Engine.all)`): one parametrized suite, not a copy
/// per engine. `APNSD_TEST_ENGINES` narrows it (`sqlite` for a quick run).
enum Engine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    static var all: [Engine] { PostgresCluster.enabled ? [.sqlite, .postgres] : [.sqlite] }

    var description: String { rawValue }
}

/// Everything a store offers, on either engine, plus raw SQL for tests that look under it.
typealias AnyStore = any ProducerStore & DeliveryStore & APIKeyStore & EventStore & GaugeStore & RetentionStore
    & ChannelStore & RawSQL & TestProducer

/// What tests (and tools) call on either engine that no production caller needs, so that it is not part of the
/// production protocols.
protocol TestProducer: Actor {
    func register(_ registration: DeviceRegistration, now: Date) async throws(StoreError) -> Device
    func createCampaign(_ spec: CampaignSpec, now: Date) async throws(StoreError) -> CampaignID
    func enqueueSingle(_ spec: CampaignSpec, now: Date) async throws(StoreError) -> CampaignID
    func releaseLeases(now: Date) async throws(StoreError) -> Int
}

extension Store: TestProducer {}
extension PostgresStore: TestProducer {}

/// Raw SQL on a store (tests only). Both engines read the same statements for simple SQL.
protocol RawSQL: Actor {
    func execute(_ sql: String) async throws
    func scalar(_ sql: String) async throws -> Int64?
}

extension Store: RawSQL {}

extension PostgresStore: RawSQL {
    func execute(_ sql: String) throws {
        try read { db in try db.execute(sql) }
    }

    func scalar(_ sql: String) throws -> Int64? {
        try read { db in try db.query(sql).scalarInt64() }
    }
}

/// One test's database on one engine: a SQLite file in a temporary folder, or a new database in the shared
/// throwaway PostgreSQL cluster. `open()` again reaches the same database (restart tests).
struct TestDatabase {
    let engine: Engine
    let folder: TemporaryFolder
    /// The file path or the URL.
    let location: String

    init(_ engine: Engine) throws {
        self.engine = engine
        folder = try TemporaryFolder()
        switch engine {
        case .sqlite: location = folder.databasePath
        case .postgres: location = try PostgresCluster.shared.createDatabase()
        }
    }

    func open(create: Bool = true, readOnly: Bool = false) async throws -> AnyStore {
        switch engine {
        case .sqlite:
            return try await Store.open(
                at: location, options: Store.Options(createIfMissing: create, readOnly: readOnly))
        case .postgres:
            return try await PostgresStore.open(
                url: location, options: PostgresStore.Options(createIfMissing: create, readOnly: readOnly))
        }
    }

    func remove() {
        folder.remove()
    }
}

extension ProducerStore {
    /// Registers `count` devices for `topic` (tokens `first..<first+count`) in one import.
    func registerDevices(
        _ range: Range<Int>, topic: String = topic, environment: Environment = .production,
        user: @Sendable (Int) -> String? = { _ in nil }, now: Date = t0
    ) async throws {
        _ = try await importDevices(
            range.map { DeviceRegistration(token: token($0), topic: topic, environment: environment, user: user($0)) },
            now: now, commitEvery: 10_000)
    }

    /// Every log entry matching `filter`.
    func allLog(_ filter: LogFilter = LogFilter()) async throws -> [LogEntry] {
        var entries: [LogEntry] = []
        while true {
            let page = try await log(filter, after: entries.last?.id, limit: 500)
            entries += page
            if page.count < 500 { return entries }
        }
    }
}

extension DeliveryStore {
    /// Expands every due campaign completely.
    func expandAll(now: Date, pageSize: Int = 1000) async throws {
        while try await expandDueCampaigns(now: now, pageSize: pageSize, maxPages: 100).moreRemaining {}
    }
}
