import APNs

/// One APNs credential as the settings give it: an entry of `apns.credentials`, or the single
/// `apns.keyFile`/`apns.keyId`/`apns.teamId` form, named `default`. Its topics are the bundle ids it sends for;
/// none: every bundle id no other credential lists.
public struct CredentialSetting: Sendable, Hashable {
    /// How the credential proves itself to APNs.
    public enum Authentication: Sendable, Hashable {
        /// A provider token signed with a `.p8` key.
        case token(keyFile: String, keyID: String, teamID: String)
        /// A TLS client certificate (`.p12`, or PEM certificate and key in one file).
        case certificate(file: String, password: CertificatePassword)
    }

    /// Where a certificate's password comes from. Its text is never printed.
    public enum CertificatePassword: Sendable, Hashable, CustomStringConvertible {
        case none
        case text(String)
        /// A file holding the password (its trailing newline ignored).
        case file(String)

        public var description: String {
            switch self {
            case .none: return "none"
            case .text: return "(given)"
            case .file(let path): return "file \(path)"
            }
        }
    }

    /// The name logs, `/v1/status` and metrics use: letters, digits, `-`, `_`, `.`.
    public var name: String
    public var authentication: Authentication
    /// Bundle ids (without push-type suffixes); empty: the fallback for bundle ids no credential lists.
    public var topics: [String]

    public init(name: String, authentication: Authentication, topics: [String] = []) {
        self.name = name
        self.authentication = authentication
        self.topics = topics
    }

    /// The name of the credential the single `apns.keyFile` form makes.
    public static let defaultName = "default"

    /// The keys an `apns.credentials` entry may hold.
    static let fields = ["name", "teamId", "keyId", "keyFile", "certificate", "password", "passwordFile", "topics"]

    /// Reads one `apns.credentials` entry (its members' shapes already checked); `path` names it in errors.
    init(entry members: [String: ConfigurationValue], path: String) throws(IntakeError) {
        func text(_ key: String) -> String? {
            members[key]?.text.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let name = text("name") else {
            throw IntakeError("'\(path).name' is required: a short name for logs and metrics")
        }
        guard Self.isName(name) else {
            throw IntakeError(
                "'\(path).name' \(Printable.escaped(String(name.prefix(64)))) must be 1–64 letters, digits, '-', '_' or '.'"
            )
        }
        let token = ["keyFile", "keyId", "teamId"].filter { members[$0] != nil }
        let certificate = ["certificate", "password", "passwordFile"].filter { members[$0] != nil }
        if !token.isEmpty && !certificate.isEmpty {
            throw IntakeError(
                "'\(path)' mixes a key (\(token.joined(separator: ", "))) and a certificate (\(certificate.joined(separator: ", "))): give one"
            )
        }
        if !token.isEmpty {
            for key in ["keyFile", "keyId", "teamId"] where text(key) == nil {
                throw IntakeError("'\(path).\(key)' is required with a .p8 key (keyFile, keyId, teamId)")
            }
            authentication = .token(keyFile: text("keyFile")!, keyID: text("keyId")!, teamID: text("teamId")!)
        } else if let file = text("certificate") {
            if members["password"] != nil && members["passwordFile"] != nil {
                throw IntakeError("'\(path)' gives both password and passwordFile: give one")
            }
            if let passwordFile = text("passwordFile") {
                authentication = .certificate(file: file, password: .file(passwordFile))
            } else if let password = members["password"]?.text {
                authentication = .certificate(file: file, password: .text(password))
            } else {
                authentication = .certificate(file: file, password: .none)
            }
        } else {
            throw IntakeError(
                "'\(path)' needs a key (keyFile, keyId, teamId) or a certificate (certificate, password or passwordFile)"
            )
        }
        var topics: [String] = []
        if case .list(let items)? = members["topics"] {
            guard !items.isEmpty else {
                throw IntakeError("'\(path).topics' is empty: list bundle ids, or leave topics out for the fallback")
            }
            for (index, item) in items.enumerated() {
                let bundleID = String(PushType.bundleID(ofTopic: item.text ?? ""))
                do { try Topic.validate(bundleID) } catch { throw IntakeError("'\(path).topics[\(index)]': \(error)") }
                topics.append(bundleID)
            }
        }
        self.name = name
        self.topics = topics
    }

    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default: return false
                }
            }
    }
}

extension Configuration {
    /// Makes the config file's relative key, certificate and password file paths (`apns.keyFile`, those of
    /// `apns.credentials`, and `webhook.secretFile`) paths in `directory`: systemd's `$CREDENTIALS_DIRECTORY`, where `LoadCredential=` puts
    /// the private copy of each file it names, so `"keyFile": "shop.p8"` is the credential `shop.p8`.
    mutating func resolveCredentialFiles(in directory: String) {
        func resolved(_ path: String) -> String {
            path.hasPrefix("/") ? path : (directory.hasSuffix("/") ? directory : directory + "/") + path
        }
        keyFile = keyFile.map(resolved)
        webhookSecretFile = webhookSecretFile.map(resolved)
        for index in credentials.indices {
            switch credentials[index].authentication {
            case .token(let keyFile, let keyID, let teamID):
                credentials[index].authentication = .token(keyFile: resolved(keyFile), keyID: keyID, teamID: teamID)
            case .certificate(let file, .file(let passwordFile)):
                credentials[index].authentication = .certificate(
                    file: resolved(file), password: .file(resolved(passwordFile)))
            case .certificate(let file, let password):
                credentials[index].authentication = .certificate(file: resolved(file), password: password)
            }
        }
    }

    /// Every credential the worker sends with: `apns.credentials`, and the single `apns.keyFile` form as `default`
    /// (the fallback for bundle ids the list does not name). Checks that names are unique, that a bundle id belongs
    /// to one credential and that at most one credential has no topics. Empty when none is configured.
    public func sendingCredentials() throws(IntakeError) -> [CredentialSetting] {
        var all = credentials
        let single = [("apns.keyFile", keyFile), ("apns.keyId", keyID), ("apns.teamId", teamID)]
        if single.contains(where: { $0.1 != nil }) {
            if let missing = single.first(where: { $0.1 == nil }) {
                throw IntakeError("\(missing.0) is missing: apns.keyFile, apns.keyId and apns.teamId go together")
            }
            all.insert(
                CredentialSetting(
                    name: CredentialSetting.defaultName,
                    authentication: .token(keyFile: keyFile!, keyID: keyID!, teamID: teamID!)), at: 0)
        }
        var names: Set<String> = []
        var owner: [String: String] = [:]
        var fallback: String?
        for credential in all {
            guard names.insert(credential.name).inserted else {
                throw IntakeError(
                    credential.name == CredentialSetting.defaultName
                        ? "apns.credentials names a credential 'default', the name of apns.keyFile's credential: rename it"
                        : "apns.credentials names '\(credential.name)' twice")
            }
            if credential.topics.isEmpty {
                if let fallback {
                    throw IntakeError(
                        "credentials '\(fallback)' and '\(credential.name)' both list no topics: only one may send for every other bundle id"
                    )
                }
                fallback = credential.name
            }
            for topic in credential.topics {
                if let first = owner.updateValue(credential.name, forKey: topic), first != credential.name {
                    throw IntakeError(
                        "topic \(topic) is listed by credentials '\(first)' and '\(credential.name)': a bundle id belongs to one credential"
                    )
                }
            }
        }
        return all
    }

    /// Which credential sends which topic, derived here only, for producers (which refuse a topic no credential
    /// sends) and workers alike. With no credential configured (a producer-only setup) every topic goes to the
    /// default credential, so none is refused.
    public func topicRoutes() throws(IntakeError) -> TopicRoutes {
        let credentials = try sendingCredentials()
        guard !credentials.isEmpty else { return .only(CredentialSetting.defaultName) }
        var byBundleID: [String: String] = [:]
        for credential in credentials {
            for topic in credential.topics { byBundleID[topic] = credential.name }
        }
        let certificates = credentials.filter { if case .certificate = $0.authentication { true } else { false } }.map(
            \.name)
        return TopicRoutes(
            byBundleID: byBundleID, fallback: credentials.first { $0.topics.isEmpty }?.name,
            certificates: Set(certificates))
    }
}
