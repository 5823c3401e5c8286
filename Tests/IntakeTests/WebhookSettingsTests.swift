import Foundation
import Intake
import Testing

/// The webhook's settings: the secret from a file (relative to `$CREDENTIALS_DIRECTORY` in the config file), one
/// way to give it at a time, rotation, the legacy switch and the parking threshold.
@Suite struct WebhookSettingsTests {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-webhook-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    static func write(_ name: String, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func load(_ environment: [String: String], config: String? = nil) throws -> Configuration {
        try Configuration.load(
            configPath: try config.map { try write("apnsd-\(UUID().uuidString).json", $0) }, flag: { _ in nil },
            environment: environment)
    }

    @Test func theSecretIsReadFromItsFileWithoutTheTrailingNewline() throws {
        let file = try Self.write("secret-\(UUID().uuidString)", "0123456789abcdef-from-a-file\r\n")
        let configuration = try Self.load([
            "APNSD_WEBHOOK_URL": "https://hooks.example/in", "APNSD_WEBHOOK_SECRET_FILE": file,
        ])
        #expect(configuration.webhookConfigured && configuration.webhookSecret == nil)
        #expect(try configuration.webhookSecretValue() == "0123456789abcdef-from-a-file")
        // The file is read by the commands that sign, not when the settings load.
        let missing = try Self.load([
            "APNSD_WEBHOOK_URL": "https://hooks.example/in", "APNSD_WEBHOOK_SECRET_FILE": file + ".missing",
        ])
        #expect(
            throws: IntakeError("cannot read webhook.secretFile \(file).missing (missing, unreadable, or over 4 KiB)")
        ) {
            try missing.webhookSecretValue()
        }
        let short = try Self.write("short-\(UUID().uuidString)", "too short\n")
        #expect(throws: IntakeError.self) {
            try Self.load(["APNSD_WEBHOOK_URL": "https://hooks.example/in", "APNSD_WEBHOOK_SECRET_FILE": short])
                .webhookSecretValue()
        }
    }

    /// In the config file, a relative path is the credential of that name that `LoadCredential=` loaded.
    @Test func aRelativeSecretFileOfTheConfigFileIsInTheCredentialsDirectory() throws {
        let credentials = Self.folder.appendingPathComponent("credentials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try "a-secret-loaded-by-systemd\n".write(
            to: credentials.appendingPathComponent("webhook.secret"), atomically: true, encoding: .utf8)
        let config = #"{"webhook":{"url":"https://hooks.example/in","secretFile":"webhook.secret"}}"#
        let configuration = try Self.load(["CREDENTIALS_DIRECTORY": credentials.path], config: config)
        #expect(configuration.webhookSecretFile == credentials.appendingPathComponent("webhook.secret").path)
        #expect(try configuration.webhookSecretValue() == "a-secret-loaded-by-systemd")
        #expect(try Self.load([:], config: config).webhookSecretFile == "webhook.secret")
    }

    @Test func bothASecretAndASecretFileIsAUsageError() throws {
        do {
            _ = try Self.load([
                "APNSD_WEBHOOK_URL": "https://hooks.example/in", "APNSD_WEBHOOK_SECRET": "0123456789abcdef",
                "APNSD_WEBHOOK_SECRET_FILE": "/etc/apnsd/webhook.secret",
            ])
            Issue.record("loaded")
        } catch {
            let error = try #require(error as? Configuration.LoadError)
            #expect(error.isUsage)
            #expect(
                error.description == "webhook.secret and webhook.secretFile both give the webhook's secret: set one")
        }
        // A file without a URL, like a secret without one, is half a webhook.
        #expect(throws: Configuration.LoadError.self) {
            try Self.load(["APNSD_WEBHOOK_SECRET_FILE": "/etc/apnsd/webhook.secret"])
        }
    }

    @Test func rotationLegacyAndParkingSettings() throws {
        let defaults = Configuration()
        #expect(defaults.webhookLegacySignature && defaults.webhookMaxAttempts == 20)
        #expect(defaults.webhookPreviousSecret == nil)
        let set = try Self.load(
            [
                "APNSD_WEBHOOK_PREVIOUS_SECRET": "the-old-secret-rotating", "APNSD_WEBHOOK_MAX_ATTEMPTS": "5",
            ],
            config: #"{"webhook":{"legacySignature":false}}"#)
        #expect(set.webhookPreviousSecret == "the-old-secret-rotating")
        #expect(set.webhookLegacySignature == false && set.webhookMaxAttempts == 5)
        #expect(throws: Configuration.LoadError.self) { try Self.load(["APNSD_WEBHOOK_MAX_ATTEMPTS": "0"]) }
        #expect(throws: Configuration.LoadError.self) { try Self.load(["APNSD_WEBHOOK_PREVIOUS_SECRET": "short"]) }
        #expect(throws: Configuration.LoadError.self) { try Self.load(["APNSD_WEBHOOK_LEGACY_SIGNATURE": "no"]) }
    }
}
