import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Intake

/// apnsd's settings: the JSON config file, then APNSD_* environment variables, then flags — each overriding the last.
struct Configuration {
    var database = "./apnsd.sqlite"
    var keyFile: String?
    var keyID: String?
    var teamID: String?
    var topic: String?
    var productionURL = Environment.production.defaultBaseURL
    var developmentURL = Environment.development.defaultBaseURL
    var caFile: String?
    var proxy: Proxy = .none
    var connections = 4
    var rate = 1500
    var retryBase: Double = 1
    var retryCap: Double = 300
    var maxAttempts = 8
    var retryMaxAge: Double = 86_400
    var workerHeartbeat: Double = 5
    var workerLease: Double = 30
    var requestTimeout: Double = 30
    var logLevel = "info"

    /// One setting: its dotted config key, its environment variable, its flag, and how to apply a value.
    struct Setting: Sendable {
        let key: String
        let environment: String
        let flag: String
        let set: @Sendable (inout Configuration, String) throws -> Void

        init(key: String, environment: String, flag: String, _ set: @escaping @Sendable (inout Configuration, String) throws -> Void) {
            self.key = key
            self.environment = environment
            self.flag = flag
            self.set = set
        }

        func apply(_ configuration: inout Configuration, _ value: String) throws(CLIError) {
            do { try set(&configuration, value) } catch { throw (error as? CLIError) ?? .usage("\(key): \(error)") }
        }
    }

    static let settings: [Setting] = [
        Setting(key: "database", environment: "APNSD_DATABASE", flag: "database") { c, v in c.database = try nonEmpty(v, "database") },
        Setting(key: "apns.keyFile", environment: "APNSD_KEY_FILE", flag: "key-file") { c, v in c.keyFile = try nonEmpty(v, "apns.keyFile") },
        Setting(key: "apns.keyId", environment: "APNSD_KEY_ID", flag: "key-id") { c, v in c.keyID = try nonEmpty(v, "apns.keyId") },
        Setting(key: "apns.teamId", environment: "APNSD_TEAM_ID", flag: "team-id") { c, v in c.teamID = try nonEmpty(v, "apns.teamId") },
        Setting(key: "apns.topic", environment: "APNSD_TOPIC", flag: "default-topic") { c, v in c.topic = try bundleID(v, "apns.topic") },
        Setting(key: "apns.productionURL", environment: "APNSD_PRODUCTION_URL", flag: "production-url") { c, v in c.productionURL = try url(v, "apns.productionURL") },
        Setting(key: "apns.developmentURL", environment: "APNSD_DEVELOPMENT_URL", flag: "development-url") { c, v in c.developmentURL = try url(v, "apns.developmentURL") },
        Setting(key: "apns.caFile", environment: "APNSD_CA_FILE", flag: "ca-file") { c, v in c.caFile = try nonEmpty(v, "apns.caFile") },
        Setting(key: "apns.proxy", environment: "APNSD_PROXY", flag: "proxy") { c, v in c.proxy = try proxySetting(v) },
        Setting(key: "apns.connections", environment: "APNSD_CONNECTIONS", flag: "connections") { c, v in c.connections = try integer(v, "apns.connections", 1...64) },
        Setting(key: "apns.rate", environment: "APNSD_RATE", flag: "rate") { c, v in c.rate = try integer(v, "apns.rate", 0...1_000_000) },
        Setting(key: "apns.requestTimeout", environment: "APNSD_REQUEST_TIMEOUT", flag: "request-timeout") { c, v in c.requestTimeout = try number(v, "apns.requestTimeout", 0.1...600) },
        Setting(key: "retry.base", environment: "APNSD_RETRY_BASE", flag: "retry-base") { c, v in c.retryBase = try number(v, "retry.base", 0.001...3600) },
        Setting(key: "retry.cap", environment: "APNSD_RETRY_CAP", flag: "retry-cap") { c, v in c.retryCap = try number(v, "retry.cap", 0.001...86400) },
        Setting(key: "retry.maxAttempts", environment: "APNSD_RETRY_MAX_ATTEMPTS", flag: "max-attempts") { c, v in c.maxAttempts = try integer(v, "retry.maxAttempts", 1...100) },
        Setting(key: "retry.maxAge", environment: "APNSD_RETRY_MAX_AGE", flag: "max-age") { c, v in c.retryMaxAge = try number(v, "retry.maxAge", 1...2_592_000) },
        Setting(key: "worker.heartbeat", environment: "APNSD_WORKER_HEARTBEAT", flag: "heartbeat") { c, v in c.workerHeartbeat = try number(v, "worker.heartbeat", 0.05...3600) },
        Setting(key: "worker.lease", environment: "APNSD_WORKER_LEASE", flag: "lease") { c, v in c.workerLease = try number(v, "worker.lease", 0.1...86_400) },
        Setting(key: "log.level", environment: "APNSD_LOG_LEVEL", flag: "log-level") { c, v in c.logLevel = try oneOf(v, "log.level", ["debug", "info", "warning", "error"]) },
    ]

    /// Flags every command accepts (the settings above, plus --config).
    static var flagNames: Set<String> { Set(settings.map(\.flag) + ["config"]) }

    /// Loads file, environment and flags in that order.
    static func load(arguments: Arguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) -> Configuration {
        var configuration = Configuration()
        let explicit = try arguments.value("config") ?? environment["APNSD_CONFIG"]
        let path = explicit ?? (FileManager.default.fileExists(atPath: "./apnsd.json") ? "./apnsd.json" : nil)
        if let path { try configuration.applyFile(path) }
        for setting in settings {
            if let value = environment[setting.environment] {
                do { try setting.apply(&configuration, value) } catch { throw .usage("\(setting.environment): \(error.message)") }
            }
        }
        for setting in settings {
            if let value = try arguments.value(setting.flag) { try setting.apply(&configuration, value) }
        }
        if configuration.retryCap < configuration.retryBase {
            throw .usage("retry.cap (\(configuration.retryCap)) must not be below retry.base (\(configuration.retryBase))")
        }
        if configuration.workerLease < 2 * configuration.workerHeartbeat {
            throw .usage("worker.lease (\(configuration.workerLease) s) must be at least twice worker.heartbeat (\(configuration.workerHeartbeat) s), or live workers lose their leases")
        }
        return configuration
    }

    private mutating func applyFile(_ path: String) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .failure("cannot read config file \(path)") }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch { throw .failure("config file \(path) is not valid JSON") }
        guard let root = object as? [String: Any] else { throw .failure("config file \(path) must hold a JSON object") }
        var flat: [String: Any] = [:]
        for (key, value) in root {
            if let nested = value as? [String: Any] {
                for (inner, innerValue) in nested { flat["\(key).\(inner)"] = innerValue }
            } else {
                flat[key] = value
            }
        }
        for (key, value) in flat {
            guard let setting = Self.settings.first(where: { $0.key == key }) else {
                throw .failure("config file \(path): unknown setting '\(key)' (known: \(Self.settings.map(\.key).joined(separator: ", ")))")
            }
            let text: String
            switch value {
            case let string as String: text = string
            case let number as NSNumber: text = number.stringValue
            default: throw .failure("config file \(path): '\(key)' must be a string or a number")
            }
            do { try setting.apply(&self, text) } catch { throw .failure("config file \(path): \(error.message)") }
        }
    }

    var retryPolicy: RetryPolicy {
        RetryPolicy(base: .milliseconds(Int64(retryBase * 1000)), cap: .milliseconds(Int64(retryCap * 1000)), maxAttempts: maxAttempts,
                    maxAge: .milliseconds(Int64(retryMaxAge * 1000)))
    }

    /// How long after its last heartbeat a worker's leases may be taken over.
    var lease: Duration { .milliseconds(Int64(workerLease * 1000)) }

    /// The three values needed to sign, or a usage error naming what is missing.
    func requireCredentials() throws(CLIError) -> (keyFile: String, keyID: String, teamID: String) {
        guard let keyFile else { throw .usage("apns.keyFile is required to dispatch (set it in the config file, APNSD_KEY_FILE or --key-file)") }
        guard let keyID else { throw .usage("apns.keyId is required to dispatch (config file, APNSD_KEY_ID or --key-id)") }
        guard let teamID else { throw .usage("apns.teamId is required to dispatch (config file, APNSD_TEAM_ID or --team-id)") }
        return (keyFile, keyID, teamID)
    }
}

private func nonEmpty(_ value: String, _ name: String) throws(CLIError) -> String {
    guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw .usage("\(name) must not be empty") }
    return value
}

private func url(_ value: String, _ name: String) throws(CLIError) -> String {
    do { return try ServiceURL.validateBase(value, setting: name) } catch { throw .usage(error.description) }
}

/// `none` (the default), `environment` (libcurl's https_proxy/no_proxy variables), or a proxy URL.
private func proxySetting(_ value: String) throws(CLIError) -> Proxy {
    switch value {
    case "none", "": return .none
    case "environment": return .environment
    default:
        do { return .url(try ServiceURL.validateProxy(value, setting: "apns.proxy")) } catch { throw .usage(error.description) }
    }
}

private func bundleID(_ value: String, _ name: String) throws(CLIError) -> String {
    do { try Topic.validate(value) } catch { throw .usage("\(name): \(error)") }
    return value
}

private func integer(_ value: String, _ name: String, _ range: ClosedRange<Int>) throws(CLIError) -> Int {
    guard let number = Int(value), range.contains(number) else {
        throw .usage("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(value)'")
    }
    return number
}

private func number(_ value: String, _ name: String, _ range: ClosedRange<Double>) throws(CLIError) -> Double {
    guard let number = Double(value), range.contains(number) else {
        throw .usage("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), got '\(value)'")
    }
    return number
}

private func oneOf(_ value: String, _ name: String, _ allowed: [String]) throws(CLIError) -> String {
    guard allowed.contains(value) else { throw .usage("\(name) must be one of \(allowed.joined(separator: ", ")), got '\(value)'") }
    return value
}
