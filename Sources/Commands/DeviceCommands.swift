import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd device add | remove | import | list`.
enum DeviceCommands {
    /// Devices handed to the store at once by `device import`, in token order (`ImportSpool`), each call one
    /// transaction; the next chunk is merged while the store writes one.
    static let importChunk = 50_000
    /// Devices per transaction within a chunk: more than one, so that a second connection checkpoints meanwhile.
    static let devicesPerTransaction = 25_000

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
        // The sort's runs are freed before the store's work begins: given back to the system, not kept for later.
        MallocTuning.returnLargeBlocks()
        // The devices go in in index order, one sweep over the (token, topic) index: a small page cache serves it.
        let store = try await StoreAccess.open(configuration, cacheSizeMiB: 16)
        var spool = ImportSpool()
        defer { spool.close() }
        var bad = 0
        var lineNumber = 0
        for line in LineReader(handle: handle) {
            lineNumber += 1
            do {
                guard let parsed = try ImportLine.parse(line) else { continue }
                try await spool.add(parsed, number: lineNumber)
            } catch let error as CLIError {
                throw error
            } catch {
                Output.error("\(source):\(lineNumber): \(error)")
                bad += 1
            }
        }
        var imported = 0
        do {
            var writing: Task<Int, any Error>?
            try await spool.devices(chunk: Self.importChunk) { devices in
                let registrations = devices.map {
                    DeviceRegistration(
                        token: $0.token, topic: topic, environment: $0.environment ?? defaultEnvironment,
                        user: $0.user, kind: kind, activityType: activityType)
                }
                if let writing { imported += try await writing.value }
                writing = Task {
                    try await store.importDevices(
                        registrations, now: Date(), commitEvery: Self.devicesPerTransaction, linkUsersLater: true)
                }
            }
            if let writing { imported += try await writing.value }
            // Also the links an import stopped before its end left waiting.
            _ = try await store.linkImportedUsers()
        } catch {
            var done = imported == 0 ? "nothing was imported" : "\(imported) device(s) were imported before it"
            if imported > 0 {
                let linked = (try? await store.linkImportedUsers()) != nil
                if !linked { done += " (their users are linked by the next device import)" }
            }
            throw .failure(
                "\(CLIError.store(error).message); \(done). Importing the file again is safe: a device imported "
                    + "twice ends registered once, as its last line says")
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
