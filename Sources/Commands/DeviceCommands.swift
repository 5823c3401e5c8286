import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd device add | remove | import | list`.
enum DeviceCommands {
    /// Lines handed to the store at once by `device import`. The store writes each batch in token order, so
    /// one batch touches each page of the token index once; a million lines take about 150 MB.
    static let importBatch = 1_000_000
    /// Registrations per transaction while importing.
    static let devicesPerTransaction = 100_000

    static func add(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words,
            valued: Set(["topic", "environment", "user", "replaces", "kind", "activity-type"])
                .union(Configuration.flagNames),
            flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let tokenText = try arguments.positionals(exactly: ["TOKEN"])[0]
        var registration = try registration(
            token: tokenText, user: arguments.value("user"),
            environment: arguments.value("environment"),
            topic: topic(arguments, configuration))
        registration.kind = try kind(arguments) ?? .device
        registration.activityType = try arguments.value("activity-type")
        if let old = try arguments.value("replaces") {
            do { registration.replaces = try DeviceToken(old) } catch { throw .usage("--replaces: \(error)") }
            guard registration.replaces != registration.token else {
                throw .usage("--replaces: a token cannot replace itself")
            }
        }
        // The kind's rules are checked before the store is opened: a bad combination is a usage error that writes nothing.
        do { _ = try registration.checked() } catch .invalidDevice(let why) {
            throw .usage("--activity-type: \(why)")
        } catch {
            throw .store(error)
        }
        let store = try await StoreAccess.open(configuration)
        do {
            let result = try await store.registerDevice(registration, now: Date())
            let device = result.device
            Output.line(
                "registered \(device.token.hex) for \(device.topic) (\(device.environment)"
                    + (device.activityType.map { ", \(device.kind) of \($0)" } ?? "") + ")"
                    + (result.replaced.map { "; deactivated \($0.token.hex) (Replaced)" } ?? ""))
        } catch {
            throw .store(error)
        }
    }

    /// `apnsd device remove TOKEN [--topic T]` or `apnsd device remove --user ID`: deactivates with reason
    /// `Removed` (and its event), as `DELETE /v1/devices/{token}` and `DELETE /v1/users/{user}/devices` do.
    static func remove(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["topic", "user"]).union(Configuration.flagNames), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        if let user = try arguments.value("user") {
            guard arguments.positionals.isEmpty, try arguments.value("topic") == nil else {
                throw .usage("give a TOKEN (with --topic when needed) or --user ID, not both")
            }
            do { try UserID.validate(user) } catch { throw .usage("--user: \(error)") }
            let store = try await StoreAccess.open(configuration)
            do {
                let count = try await store.deactivateDevices(user: user, reason: .removed, now: Date())
                Output.line(
                    "deactivated \(count) device\(count == 1 ? "" : "s") of user \(Printable.escaped(user)) (Removed)")
            } catch {
                throw .store(error)
            }
            return
        }
        let tokenText = try arguments.positionals(exactly: ["TOKEN (or --user ID)"])[0]
        let token: DeviceToken
        do { token = try DeviceToken(tokenText) } catch { throw .usage("\(error)") }
        let topic = try arguments.value("topic")
        if let topic { do { try Topic.validate(topic) } catch { throw .usage("\(error)") } }
        let store = try await StoreAccess.open(configuration)
        let device: Device?
        let wasActive: Bool
        do {
            wasActive = try await store.devices(token: token).contains {
                $0.isActive && (topic == nil || $0.topic == topic)
            }
            device = try await store.deactivateDevice(token: token, topic: topic, reason: .removed, now: Date())
        } catch {
            throw .store(error)
        }
        guard let device else {
            throw .failure("no device with token \(token.hex)\(topic.map { " for topic \($0)" } ?? "")")
        }
        if wasActive {
            Output.line("removed \(device.token.hex) for \(device.topic)")
        } else {
            Output.line(
                "\(device.token.hex) for \(device.topic) was already inactive (\(device.reason?.rawValue ?? "?"))")
        }
    }

    static func importFile(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["topic", "environment", "kind", "activity-type"]).union(Configuration.flagNames),
            flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let source = try arguments.positionals(exactly: ["FILE (or - for stdin)"])[0]
        let topic = try topic(arguments, configuration)
        // Every line of the file is of this kind (push-to-start tokens collected by the app, say).
        let kind = try kind(arguments) ?? .device
        let activityType = try arguments.value("activity-type")
        do { try DeviceRegistration.check(kind, activityType: activityType) } catch .invalidDevice(let why) {
            throw .usage("--activity-type: \(why)")
        } catch {
            throw .store(error)
        }
        let defaultEnvironment =
            try arguments.value("environment").map { (text: String) throws(CLIError) -> Environment in
                do { return try Environment.parse(text) } catch { throw .usage("\(error)") }
            } ?? .production
        guard let handle = source == "-" ? Invocation.current.standardInput : FileHandle(forReadingAtPath: source)
        else {
            throw .failure("cannot read \(source)")
        }
        // A big page cache keeps the (token, topic) index in memory while a large file goes in.
        let store = try await StoreAccess.open(configuration, cacheSizeMiB: 512)
        var batch: [DeviceRegistration] = []
        batch.reserveCapacity(Self.importBatch)
        var imported = 0
        var bad = 0
        var lineNumber = 0
        var writing: Task<Int, any Error>?
        do {
            for line in LineReader(handle: handle) {
                lineNumber += 1
                do {
                    guard let parsed = try ImportLine.parse(line) else { continue }
                    batch.append(
                        DeviceRegistration(
                            token: parsed.token, topic: topic, environment: parsed.environment ?? defaultEnvironment,
                            user: parsed.user, kind: kind, activityType: activityType))
                } catch {
                    Output.error("\(source):\(lineNumber): \(error)")
                    bad += 1
                    continue
                }
                if batch.count == Self.importBatch {
                    // Parse the next batch while the store's thread writes this one.
                    if let writing { imported += try await writing.value }
                    let full = batch
                    writing = Task {
                        try await store.importDevices(full, now: Date(), commitEvery: Self.devicesPerTransaction)
                    }
                    batch = []
                    batch.reserveCapacity(Self.importBatch)
                }
            }
            if let writing { imported += try await writing.value }
            if !batch.isEmpty {
                imported += try await store.importDevices(batch, now: Date(), commitEvery: Self.devicesPerTransaction)
            }
        } catch {
            throw .store(error)
        }
        Output.error("imported \(imported) device(s) for \(topic)\(bad > 0 ? "; \(bad) bad line(s) skipped" : "")")
        if bad > 0 { throw .failure("\(bad) bad line(s) in \(source) were not imported") }
    }

    static func list(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Configuration.flagNames.union(["user", "kind"]), flagNames: ["active", "inactive", "json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        if arguments.flag("active") && arguments.flag("inactive") {
            throw .usage("--active and --inactive exclude each other")
        }
        let active: Bool? = arguments.flag("active") ? true : arguments.flag("inactive") ? false : nil
        let user = try arguments.value("user")
        if let user {
            do { try UserID.validate(user) } catch { throw .usage("--user: \(error)") }
        }
        let kind = try kind(arguments)
        let json = arguments.flag("json")
        let store = try await StoreAccess.open(configuration, readOnly: true)
        var after: Int64?
        var table: DeviceTable?
        do {
            while true {
                let page = try await store.devices(active: active, user: user, kind: kind, after: after, limit: 1000)
                if json {
                    for device in page { Output.line(device.json.description) }
                } else {
                    // Columns as wide as the first page needs: rows stream, so a later, longer value only
                    // shifts the rest of its own line.
                    let columns = table ?? DeviceTable(fitting: page)
                    if table == nil { Output.line(columns.header) }
                    table = columns
                    for device in page { Output.line(columns.line(device)) }
                }
                guard let last = page.last, page.count == 1000 else { break }
                after = last.id
            }
        } catch {
            throw .store(error)
        }
    }

    /// `--kind device|activity|pushToStart`, if given.
    static func kind(_ arguments: Arguments) throws(CLIError) -> DeviceKind? {
        guard let text = try arguments.value("kind") else { return nil }
        do { return try DeviceKind.parse(text) } catch .invalidDevice(let why) { throw .usage("--\(why)") } catch {
            throw .store(error)
        }
    }

    static func topic(_ arguments: Arguments, _ configuration: Configuration) throws(CLIError) -> String {
        let topic = try givenTopic(arguments, configuration)
        do { try Topic.validate(topic) } catch { throw .usage("\(error)") }
        return topic
    }

    /// `--topic`, else `apns.topic`, unchecked (a `NotificationContent` checks it where it is made).
    static func givenTopic(_ arguments: Arguments, _ configuration: Configuration) throws(CLIError) -> String {
        guard let topic = try arguments.value("topic") ?? configuration.topic else {
            throw .usage("no topic: pass --topic BUNDLE_ID or set apns.topic")
        }
        return topic
    }

    private static func registration(token: String, user: String?, environment: String?, topic: String) throws(CLIError)
        -> DeviceRegistration
    {
        do {
            if let user { try UserID.validate(user) }
            return DeviceRegistration(
                token: try DeviceToken(token), topic: topic,
                environment: try environment.map(Environment.parse) ?? .production, user: user)
        } catch {
            throw .usage("\(error)")
        }
    }
}
