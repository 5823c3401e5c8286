import Foundation

/// A throwaway CA that issues APNs-style client certificates for tests, made with the `openssl` CLI: the bundle id
/// in the subject's UID (0.9.2342.19200300.100.1.1) and the environments as Apple marks them (extension
/// 1.2.840.113635.100.6.3.1 = development, 1.2.840.113635.100.6.3.2 = production), as PEM certificate and key and
/// as a password-protected .p12 that OpenSSL 3's PKCS12_parse (curl, libcurl, ProviderAuth) loads. Keys are P-256.
///
///     let ca = try TestCertificateAuthority(in: directory)
///     let good = try ca.issue(bundleID: "com.example.app", environments: [.development])
///     let expired = try ca.issue(bundleID: "com.example.app", environments: [.development], daysValid: -1)
public struct TestCertificateAuthority: Sendable {
    /// The APNs environments a certificate can be marked for.
    public enum Environment: String, Sendable, CaseIterable {
        case development, production

        /// Apple's extension OID that marks a push certificate for this environment.
        public var extensionOID: String {
            self == .development ? "1.2.840.113635.100.6.3.1" : "1.2.840.113635.100.6.3.2"
        }
    }

    /// The files of one issued certificate.
    public struct Issued: Sendable {
        /// The certificate, PEM.
        public let certPEM: String
        /// Its private key, unencrypted PKCS#8 PEM.
        public let keyPEM: String
        /// Certificate, key and the CA certificate as PKCS#12 (AES-256-CBC, SHA-256 MAC), protected by `password`.
        public let p12: String
        public let password: String
    }

    /// Why openssl could not make a certificate.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder holding the CA's files and everything it issues.
    public let directory: String
    /// The CA certificate (PEM): what a server verifies client certificates against.
    public let certificatePEM: String
    /// The CA's private key (PEM).
    public let keyPEM: String

    /// Creates a CA (P-256, valid ten years) in `directory` (created if missing), under `name`.
    public init(in directory: String, name: String = "ca") throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        certificatePEM = "\(directory)/\(name).pem"
        keyPEM = "\(directory)/\(name).key"
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", keyPEM, "-out", certificatePEM, "-days", "3650",
            "-subj", "/O=apnsd tests/CN=Test Push CA \(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// Issues a client certificate with `bundleID` as subject UID (nil: no UID), marked for `environments` (empty:
    /// neither extension), valid until `daysValid` days from now — 0 or less gives one that has already expired
    /// (valid from 30 days before its end). `name` names its files (default: a fresh unique name).
    public func issue(
        bundleID: String?, environments: Set<Environment>, daysValid: Int = 365,
        name: String? = nil
    ) throws -> Issued {
        let base = "\(directory)/\(name ?? "client-\(UUID().uuidString.prefix(8).lowercased())")"
        let key = base + ".key"
        let request = base + ".csr"
        let cert = base + ".pem"
        let p12 = base + ".p12"
        let password = "pw-" + UUID().uuidString.lowercased()
        let subject =
            (bundleID.map { "/UID=\($0)" } ?? "") + "/CN=Apple Push Services: \(bundleID ?? "none")/O=apnsd tests"
        try Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", request, "-subj", subject,
        ])
        // `openssl ca` (not `x509 -req`) because OpenSSL 3.0's x509 cannot set a start and end date: an expired
        // certificate needs both in the past.
        let day: TimeInterval = 86_400
        let notAfter = Date().addingTimeInterval(TimeInterval(daysValid) * day)
        let notBefore = min(Date().addingTimeInterval(-day), notAfter.addingTimeInterval(-30 * day))
        let config = try writeConfig(base: base, environments: environments)
        try Self.openssl([
            "ca", "-batch", "-config", config, "-name", "testca", "-extensions", "client",
            "-cert", certificatePEM, "-keyfile", keyPEM, "-in", request, "-out", cert, "-notext", "-preserveDN",
            "-subj", subject, "-startdate", Self.timestamp(notBefore), "-enddate", Self.timestamp(notAfter),
        ])
        // AES-256-CBC with a SHA-256 MAC is OpenSSL 3's default, spelt out: what its PKCS12_parse reads without
        // the legacy provider (RC2/3DES, the old default, would need -legacy).
        try Self.openssl([
            "pkcs12", "-export", "-in", cert, "-inkey", key, "-certfile", certificatePEM, "-name", bundleID ?? "client",
            "-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-macalg", "sha256",
            "-out", p12, "-passout", "pass:\(password)",
        ])
        return Issued(certPEM: cert, keyPEM: key, p12: p12, password: password)
    }

    // A minimal `openssl ca` setup of its own per certificate: a database, a serial and the extensions.
    private func writeConfig(base: String, environments: Set<Environment>) throws -> String {
        let database = base + ".index"
        let issuedDirectory = base + ".issued"
        try FileManager.default.createDirectory(atPath: issuedDirectory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: database, contents: nil)
        let marks = environments.sorted { $0.rawValue < $1.rawValue }.map { "\($0.extensionOID) = ASN1:NULL" }
        let text = """
            [ testca ]
            database = \(database)
            new_certs_dir = \(issuedDirectory)
            rand_serial = yes
            default_md = sha256
            policy = anything
            unique_subject = no
            email_in_dn = no

            [ anything ]
            commonName = optional

            [ client ]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = clientAuth
            \(marks.joined(separator: "\n"))

            """
        let path = base + ".cnf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: date)
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try ToolRun.run("/usr/bin/env", ["openssl"] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)")
        }
    }
}
