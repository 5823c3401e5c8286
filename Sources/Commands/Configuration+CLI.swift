import Dispatcher
import Foundation
import HTTP2Transport
import Intake
import Logging
import PostgresStore

extension Configuration {
    /// The database as messages and logs name it: a PostgreSQL URL without its password.
    var databaseName: String { PostgresStore.isURL(database) ? PostgresStore.redacted(database) : database }

    /// Loads the settings for a command: its config file, the environment, then its flags.
    /// An unknown `APNSD_*` variable gets one warning line on stderr each.
    static func load(arguments: Arguments, environment: [String: String] = Invocation.current.environment)
        throws(CLIError) -> Configuration
    {
        for warning in unknownEnvironmentWarnings(environment) { Output.error("apnsd: warning: \(warning)") }
        do {
            return try load(
                configPath: arguments.value("config"), flag: { name in try arguments.value(name) },
                environment: environment)
        } catch let error as Configuration.LoadError {
            throw error.isUsage ? .usage(error.description) : .failure(error.description)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
    }

    /// `log.level` as the logger's level (the setting was checked when it was loaded).
    var loggerLevel: Logger.Level {
        ["debug": .debug, "warning": .warning, "error": .error][logLevel] ?? .info
    }

    var retryPolicy: RetryPolicy {
        RetryPolicy(
            base: .milliseconds(Int64(retryBase * 1000)), cap: .milliseconds(Int64(retryCap * 1000)),
            maxAttempts: maxAttempts,
            maxAge: .milliseconds(Int64(retryMaxAge * 1000)), jitter: Jitter(retryJitter) ?? .full)
    }

    /// `apns.proxy` for the transport.
    var transportProxy: Proxy {
        switch proxy {
        case .none: return .none
        case .environment: return .environment
        case .url(let url): return .url(url)
        }
    }

    /// The three values needed to sign, or a usage error naming what is missing.
    func requireCredentials() throws(CLIError) -> (keyFile: String, keyID: String, teamID: String) {
        guard let keyFile else {
            throw .usage(
                "apns.keyFile is required to dispatch (set it in the config file, APNSD_KEY_FILE or --key-file)")
        }
        guard let keyID else {
            throw .usage("apns.keyId is required to dispatch (config file, APNSD_KEY_ID or --key-id)")
        }
        guard let teamID else {
            throw .usage("apns.teamId is required to dispatch (config file, APNSD_TEAM_ID or --team-id)")
        }
        return (keyFile, keyID, teamID)
    }
}
