import APNs
import Events
import Foundation
import HTTPServer
import Intake
import Logging
import ProviderAuth

/// `apnsd config check [--json]`: loads the settings and the key, mints a provider token, resolves the APNs
/// hosts and opens the database read-only, and says what it found — never the key or the token. Exit 1 when any
/// check failed, so it can gate a deploy.
enum ConfigCheckCommand {
    private struct Check {
        let name: String
        let ok: Bool
        let detail: String
    }

    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        _ = try arguments.positionals(exactly: [])
        let configuration = try Configuration.load(arguments: arguments)
        var checks: [Check] = []
        let file = Configuration.configFile(
            configPath: try arguments.value("config"), environment: Invocation.current.environment)
        checks.append(
            Check(
                name: "settings", ok: true,
                detail: file.map { "config file \($0)" } ?? "no config file (environment and flags only)"))
        checks.append(await database(configuration))
        checks.append(contentsOf: credentials(configuration))
        if let caFile = configuration.caFile {
            let readable = FileManager.default.isReadableFile(atPath: caFile)
            checks.append(
                Check(name: "ca", ok: readable, detail: readable ? caFile : "cannot read apns.caFile \(caFile)"))
        } else {
            checks.append(Check(name: "ca", ok: true, detail: "the system's trust store"))
        }
        checks.append(resolve("production", configuration.productionURL))
        checks.append(resolve("development", configuration.developmentURL))
        checks.append(await channelHosts(configuration))
        checks.append(api(configuration))
        checks.append(
            Check(
                name: "topic", ok: true,
                detail: configuration.topic.map { "default topic \($0)" } ?? "no default topic (each send names one)"))
        if let webhook = configuration.webhookURL {
            // The secret file is read as serve reads it; the secret itself is never printed.
            let shown = WebhookSender.redacted(webhook)
            do {
                _ = try configuration.webhookSecretValue()
                let source = configuration.webhookSecretFile.map { "webhook.secretFile \($0)" } ?? "webhook.secret"
                checks.append(Check(name: "webhook", ok: true, detail: "\(shown) (signed with \(source))"))
            } catch {
                checks.append(Check(name: "webhook", ok: false, detail: "\(shown): \(error.description)"))
            }
        }
        let ok = checks.allSatisfy(\.ok)
        if arguments.flag("json") {
            let members = checks.map {
                "\(JSONText.quote($0.name)):\(JSONLine(["ok": .bool($0.ok), "detail": .string($0.detail)]).description)"
            }
            Output.line(#"{"ok":\#(ok),"checks":{\#(members.joined(separator: ","))}}"#)
        } else {
            for check in checks {
                Output.line((check.ok ? "ok    " : "FAIL  ") + Output.pad(check.name, 13) + check.detail)
            }
        }
        if !ok {
            throw .failure("config check failed: \(checks.filter { !$0.ok }.map(\.name).joined(separator: ", "))")
        }
    }

    private static func database(_ configuration: Configuration) async -> Check {
        do {
            _ = try await StoreAccess.open(configuration, readOnly: true)
            return Check(name: "database", ok: true, detail: "\(configuration.databaseName) (schema up to date)")
        } catch {
            return Check(name: "database", ok: false, detail: error.message)
        }
    }

    /// One check per credential (`key` for the single apns.keyFile form, `credential.NAME` for each apns.credentials
    /// entry): each key loaded and a provider token minted with it; certificates loaded, with their expiry.
    private static func credentials(_ configuration: Configuration) -> [Check] {
        let setup: WorkerSetup
        do { setup = try WorkerSetup(configuration) } catch {
            return [Check(name: "key", ok: false, detail: error.message)]
        }
        var checks: [Check] = []
        if !setup.credentials.contains(where: { $0.name == CredentialSetting.defaultName }) {
            checks.append(
                Check(
                    name: "key", ok: true,
                    detail: "no apns.keyFile; \(setup.credentials.count) apns.credentials entries"))
        }
        for loaded in setup.credentials {
            let isDefault = loaded.name == CredentialSetting.defaultName
            let name = isDefault ? "key" : "credential.\(loaded.name)"
            let topics =
                isDefault || loaded.setting.topics.isEmpty
                ? "" : " for \(loaded.setting.topics.joined(separator: ", "))"
            if let certificate = loaded.certificate, case .certificate(let file, _) = loaded.setting.authentication {
                let days = certificate.daysLeft(now: Date())
                let subject = [
                    certificate.subjectCommonName.map { "CN \($0)" }, certificate.subjectUID.map { "UID \($0)" },
                ]
                .compactMap { $0 }.joined(separator: ", ")
                let expires = "expires \(JSONLine.timestamp(certificate.notAfter))"
                checks.append(
                    Check(
                        name: name, ok: days >= 0,
                        detail: "\(file) (\(subject))\(topics): "
                            + (days < 0
                                ? "expired on \(JSONLine.timestamp(certificate.notAfter)): renew it"
                                : days < 30
                                    ? "\(expires), in \(days) days: renew it soon" : "\(expires) (\(days) days)")))
                continue
            }
            guard let (key, credential) = loaded.key else { continue }
            guard case .token(let keyFile, _, _) = loaded.setting.authentication else { continue }
            do {
                _ = try ProviderToken.mint(key: key, credential: credential, issuedAt: Date())
                checks.append(
                    Check(
                        name: name, ok: true,
                        detail:
                            "\(keyFile) (key id \(credential.keyId), team \(credential.teamId))\(topics): minted an ES256 provider token"
                    ))
            } catch {
                checks.append(Check(name: name, ok: false, detail: "cannot mint a provider token: \(error)"))
            }
        }
        return checks
    }

    /// The channel management hosts (`apnsd channel`), both environments, in one check named `channels` — when
    /// broadcast channels are in use (a channel recorded, or a channel host set): a push-only setup, such as a
    /// staging one that only reaches apns-mock, need not resolve Apple's channel hosts.
    private static func channelHosts(_ configuration: Configuration) async -> Check {
        let hostsSet =
            configuration.channelProductionURL != ChannelManagement.defaultBaseURL(.production)
            || configuration.channelDevelopmentURL != ChannelManagement.defaultBaseURL(.development)
        if !hostsSet {
            let store = try? await StoreAccess.openForChannels(configuration, readOnly: true)
            let recorded = try? await store?.channels(topic: nil, includeDeleted: false).isEmpty == false
            if recorded != true {
                return Check(
                    name: "channels", ok: true,
                    detail: "not in use (no channel recorded, apns.channel*URL not set): hosts not checked")
            }
        }
        let checks = [
            resolve("production", configuration.channelProductionURL),
            resolve("development", configuration.channelDevelopmentURL),
        ]
        return Check(
            name: "channels", ok: checks.allSatisfy(\.ok),
            detail: checks.map { "\($0.name) \($0.detail)" }.joined(separator: "; "))
    }

    /// The URL's host through the system resolver (what libcurl will use).
    private static func resolve(_ name: String, _ url: String) -> Check {
        guard let host = URLComponents(string: url)?.host else {
            return Check(name: name, ok: false, detail: "\(url): no host")
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &result)
        guard code == 0, let first = result else {
            return Check(
                name: name, ok: false, detail: "\(url): cannot resolve \(host) (\(String(cString: gai_strerror(code))))"
            )
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
                == 0
            {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
            next = entry.pointee.ai_next
        }
        return Check(
            name: name, ok: true,
            detail:
                "\(url) → \(addresses.prefix(3).joined(separator: ", "))\(addresses.count > 3 ? " (+\(addresses.count - 3))" : "")"
        )
    }

    private static func api(_ configuration: Configuration) -> Check {
        do {
            let address = try ListenAddress(parsing: configuration.apiListen)
            guard let cert = configuration.apiTLSCert, let key = configuration.apiTLSKey else {
                return Check(name: "api", ok: true, detail: "apnsd serve listens on http://\(address)")
            }
            for file in [cert, key] where !FileManager.default.isReadableFile(atPath: file) {
                return Check(
                    name: "api", ok: false, detail: "cannot read \(file == cert ? "api.tlsCert" : "api.tlsKey") \(file)"
                )
            }
            return Check(name: "api", ok: true, detail: "apnsd serve listens on https://\(address)")
        } catch {
            return Check(name: "api", ok: false, detail: "api.listen \(configuration.apiListen): \(error)")
        }
    }
}
