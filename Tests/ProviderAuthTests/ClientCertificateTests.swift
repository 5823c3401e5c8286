import Foundation
import ProviderAuth
import TestSupport
import Testing

@Suite("Loading client certificates", .offThePool)
struct ClientCertificateTests {
    static let bundleID = "com.example.app"
    static let subject = "/UID=\(bundleID)/CN=Apple Push Services: \(bundleID)/OU=TEAM123456/O=Example/C=US"

    /// A scratch folder with a CA and a client certificate it issued; removed by the caller.
    struct Files {
        let directory: URL
        let ca: OpenSSLCLI.Issued
        let client: OpenSSLCLI.Issued

        init(days: Int = 365, keyPassword: String? = nil) throws {
            directory = try Fixture.temporaryDirectory()
            ca = try OpenSSLCLI.certificateAuthority(in: directory)
            client = try OpenSSLCLI.clientCertificate(
                in: directory, name: "client", subject: ClientCertificateTests.subject,
                days: days, ca: ca, keyPassword: keyPassword)
        }

        func write(_ name: String, _ parts: [String]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            let text = try parts.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// The public key of a PEM private key or certificate, as openssl derives it (an implementation independent of ours).
    static func publicKey(ofKeyPEM bytes: [UInt8], in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("exported-\(UUID().uuidString).pem").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try OpenSSLCLI.succeed(["pkey", "-in", path, "-pubout"])
    }

    static func publicKey(ofCertificate path: String) throws -> String {
        try OpenSSLCLI.succeed(["x509", "-in", path, "-noout", "-pubkey"])
    }

    static func certificateCount(_ pem: [UInt8]) -> Int {
        String(decoding: pem, as: UTF8.self).components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
    }

    @Test(
        "PEM with key, CA and certificate in any order: the certificate leads the chain and the key is exported as PKCS#8"
    )
    func plainPEM() throws {
        let files = try Files()
        defer { files.remove() }
        let path = try files.write("combined.pem", [files.client.key, files.ca.certificate, files.client.certificate])
        let certificate = try ClientCertificate(contentsOfFile: path, password: nil)

        #expect(certificate.subjectUID == Self.bundleID)
        #expect(certificate.subjectCommonName == "Apple Push Services: \(Self.bundleID)")
        #expect(Self.certificateCount(certificate.certificateChainPEM) == 2)
        let chainFile = files.directory.appendingPathComponent("chain.pem").path
        try Data(certificate.certificateChainPEM).write(to: URL(fileURLWithPath: chainFile))
        #expect(
            try OpenSSLCLI.subject(ofCertificateIn: chainFile)
                == OpenSSLCLI.subject(ofCertificateIn: files.client.certificate))
        #expect(String(decoding: certificate.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(
            try Self.publicKey(ofKeyPEM: certificate.privateKeyPEM, in: files.directory)
                == Self.publicKey(ofCertificate: files.client.certificate))
    }

    @Test("an encrypted PEM key opens with its password; a wrong or missing password is named as such")
    func encryptedPEM() throws {
        let files = try Files(keyPassword: "s3cret")
        defer { files.remove() }
        let path = try files.write("combined.pem", [files.client.certificate, files.client.key])
        #expect(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).contains(
                "ENCRYPTED PRIVATE KEY"))

        let certificate = try ClientCertificate(contentsOfFile: path, password: "s3cret")
        #expect(String(decoding: certificate.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(
            try Self.publicKey(ofKeyPEM: certificate.privateKeyPEM, in: files.directory)
                == Self.publicKey(ofCertificate: files.client.certificate))
        #expect(throws: ProviderAuthError.wrongCertificatePassword) {
            try ClientCertificate(contentsOfFile: path, password: "guess")
        }
        #expect(throws: ProviderAuthError.certificatePasswordRequired) {
            try ClientCertificate(contentsOfFile: path, password: nil)
        }
        #expect(throws: ProviderAuthError.certificatePasswordRequired) {
            try ClientCertificate(contentsOfFile: path, password: "")
        }
    }

    @Test(
        "a traditional encrypted key (\"Proc-Type: 4,ENCRYPTED\", as `openssl rsa -aes256` writes) opens with its password"
    )
    func traditionalEncryptedPEM() throws {
        let files = try Files()
        defer { files.remove() }
        let traditional = files.directory.appendingPathComponent("traditional-key.pem").path
        try OpenSSLCLI.succeed([
            "pkey", "-in", files.client.key, "-traditional", "-aes256", "-passout", "pass:old-style", "-out",
            traditional,
        ])
        let path = try files.write("combined.pem", [files.client.certificate, traditional])
        #expect(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).contains(
                "Proc-Type: 4,ENCRYPTED"))

        let certificate = try ClientCertificate(contentsOfFile: path, password: "old-style")
        #expect(
            try Self.publicKey(ofKeyPEM: certificate.privateKeyPEM, in: files.directory)
                == Self.publicKey(ofCertificate: files.client.certificate))
        #expect(throws: ProviderAuthError.wrongCertificatePassword) {
            try ClientCertificate(contentsOfFile: path, password: "new-style")
        }
        #expect(throws: ProviderAuthError.certificatePasswordRequired) {
            try ClientCertificate(contentsOfFile: path, password: nil)
        }
    }

    @Test("a .p12 with a password loads with its chain; a wrong or missing password fails the MAC check")
    func p12WithPassword() throws {
        let files = try Files()
        defer { files.remove() }
        let path = try OpenSSLCLI.pkcs12(
            in: files.directory, name: "cert", files.client, chain: [files.ca.certificate], password: "export-pw")
        let certificate = try ClientCertificate(contentsOfFile: path, password: "export-pw")
        #expect(certificate.subjectUID == Self.bundleID)
        #expect(Self.certificateCount(certificate.certificateChainPEM) == 2)
        #expect(
            try Self.publicKey(ofKeyPEM: certificate.privateKeyPEM, in: files.directory)
                == Self.publicKey(ofCertificate: files.client.certificate))

        #expect(throws: ProviderAuthError.wrongCertificatePassword) {
            try ClientCertificate(contentsOfFile: path, password: "export-PW")
        }
        #expect(throws: ProviderAuthError.certificatePasswordRequired) {
            try ClientCertificate(contentsOfFile: path, password: nil)
        }
    }

    @Test("a .p12 exported without a password loads with none or an empty one")
    func p12WithoutPassword() throws {
        let files = try Files()
        defer { files.remove() }
        let path = try OpenSSLCLI.pkcs12(in: files.directory, name: "cert", files.client, password: "")
        let withNone = try ClientCertificate(contentsOfFile: path, password: nil)
        let withEmpty = try ClientCertificate(contentsOfFile: path, password: "")
        #expect(withNone == withEmpty)
        #expect(withNone.subjectUID == Self.bundleID)
        #expect(Self.certificateCount(withNone.certificateChainPEM) == 1)
        #expect(throws: ProviderAuthError.wrongCertificatePassword) {
            try ClientCertificate(contentsOfFile: path, password: "something")
        }
    }

    @Test("a legacy .p12 (RC2-40, as older Keychain exports) loads through OpenSSL's legacy provider")
    func legacyP12() throws {
        let files = try Files()
        defer { files.remove() }
        let path = try OpenSSLCLI.pkcs12(
            in: files.directory, name: "legacy", files.client, password: "old", legacy: true)
        let info = try OpenSSLCLI.run(["pkcs12", "-in", path, "-info", "-noout", "-passin", "pass:old", "-legacy"])
            .output
        #expect(info.contains("RC2"))
        let certificate = try ClientCertificate(contentsOfFile: path, password: "old")
        #expect(certificate.subjectUID == Self.bundleID)
        #expect(
            try Self.publicKey(ofKeyPEM: certificate.privateKeyPEM, in: files.directory)
                == Self.publicKey(ofCertificate: files.client.certificate))
        #expect(throws: ProviderAuthError.wrongCertificatePassword) {
            try ClientCertificate(contentsOfFile: path, password: "new")
        }
    }

    @Test("a key that belongs to another certificate is refused")
    func mismatchedKey() throws {
        let files = try Files()
        defer { files.remove() }
        let other = try OpenSSLCLI.clientCertificate(in: files.directory, name: "other", subject: "/CN=other")
        let path = try files.write("mixed.pem", [files.client.certificate, other.key])
        #expect(throws: ProviderAuthError.certificateKeyMismatch) {
            try ClientCertificate(contentsOfFile: path, password: nil)
        }
    }

    @Test("a certificate without its key is refused, as PEM and as .p12")
    func noKey() throws {
        let files = try Files()
        defer { files.remove() }
        let pem = try files.write("cert-only.pem", [files.client.certificate])
        #expect(throws: ProviderAuthError.certificateWithoutPrivateKey) {
            try ClientCertificate(contentsOfFile: pem, password: nil)
        }
        let p12 = try OpenSSLCLI.pkcs12(
            in: files.directory, name: "nokey", files.client, password: "pw", withKey: false)
        #expect(throws: ProviderAuthError.certificateWithoutPrivateKey) {
            try ClientCertificate(contentsOfFile: p12, password: "pw")
        }
    }

    @Test("garbage, a key alone, a missing file and a folder each get their own error")
    func notACertificate() throws {
        let files = try Files()
        defer { files.remove() }
        let garbage = files.directory.appendingPathComponent("garbage.p12").path
        try Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: ProviderAuthError.notACertificate) {
            try ClientCertificate(contentsOfFile: garbage, password: "pw")
        }
        let keyOnly = try files.write("key-only.pem", [files.client.key])
        #expect(throws: ProviderAuthError.notACertificate) {
            try ClientCertificate(contentsOfFile: keyOnly, password: nil)
        }
        #expect(throws: ProviderAuthError.notACertificate) { try ClientCertificate(bytes: [], password: nil) }
        let missing = files.directory.appendingPathComponent("nope.p12").path
        #expect(throws: ProviderAuthError.certificateFileMissing(path: missing)) {
            try ClientCertificate(contentsOfFile: missing, password: nil)
        }
        #expect(
            throws: ProviderAuthError.certificateFileUnreadable(path: files.directory.path, reason: "it is a directory")
        ) {
            try ClientCertificate(contentsOfFile: files.directory.path, password: nil)
        }
    }

    @Test("a damaged certificate block is malformed, and the error quotes none of the file")
    func damagedBlock() throws {
        let files = try Files()
        defer { files.remove() }
        let certificate = try String(contentsOfFile: files.client.certificate, encoding: .utf8)
        var lines = certificate.split(separator: "\n").map(String.init)
        lines[3] = String(lines[3].reversed())
        let key = try String(contentsOfFile: files.client.key, encoding: .utf8)
        let keyLine = key.split(separator: "\n")[2]
        do {
            _ = try ClientCertificate(bytes: Array((lines.joined(separator: "\n") + "\n" + key).utf8), password: nil)
            Issue.record("a damaged certificate loaded")
        } catch {
            guard case .malformedCertificate = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(!error.description.contains(keyLine))
            #expect(!error.description.contains(lines[3]))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("validity dates are the certificate's, and daysLeft counts whole days, negative once expired")
    func expiry() throws {
        let files = try Files(days: 30)
        defer { files.remove() }
        let path = try files.write("combined.pem", [files.client.certificate, files.client.key])
        let certificate = try ClientCertificate(contentsOfFile: path, password: nil)
        let printed = try OpenSSLCLI.succeed([
            "x509", "-in", files.client.certificate, "-noout", "-enddate", "-dateopt", "iso_8601",
        ])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss'Z'"
        let expected = formatter.date(
            from: printed.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
                of: "notAfter=", with: ""))
        #expect(certificate.notAfter == expected)
        #expect(certificate.daysLeft(now: certificate.notBefore) == 30)
        #expect(certificate.daysLeft(now: certificate.notBefore.addingTimeInterval(12 * 3600)) == 29)
        #expect(certificate.daysLeft(now: certificate.notAfter) == 0)
        #expect(certificate.daysLeft(now: certificate.notAfter.addingTimeInterval(1)) == -1)

        let expiredFiles = try Files(days: -1)
        defer { expiredFiles.remove() }
        let expiredPath = try expiredFiles.write(
            "expired.pem", [expiredFiles.client.certificate, expiredFiles.client.key])
        let expired = try ClientCertificate(contentsOfFile: expiredPath, password: nil)
        #expect(expired.notAfter < expired.notBefore)
        #expect(expired.daysLeft(now: expired.notBefore) == -1)
        #expect(expired.daysLeft(now: expired.notBefore.addingTimeInterval(3 * 86_400)) == -4)
    }

    @Test("a certificate without a UID has none, and its common name is still read")
    func noUID() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let issued = try OpenSSLCLI.clientCertificate(in: directory, name: "plain", subject: "/CN=Ünïcode name")
        let certificate = try ClientCertificate(
            bytes: Array(
                try Data(contentsOf: URL(fileURLWithPath: issued.certificate))
                    + Data(contentsOf: URL(fileURLWithPath: issued.key))), password: nil)
        #expect(certificate.subjectUID == nil)
        #expect(certificate.subjectCommonName == "Ünïcode name")
    }

    @Test("description, debugDescription and dump show no key material")
    func redaction() throws {
        let files = try Files()
        defer { files.remove() }
        let path = try files.write("combined.pem", [files.client.certificate, files.client.key])
        let certificate = try ClientCertificate(contentsOfFile: path, password: nil)
        let keyText = String(decoding: certificate.privateKeyPEM, as: UTF8.self)
        let keyLines = keyText.split(separator: "\n").dropFirst().dropLast().map(String.init)
        var dumped = ""
        dump(certificate, to: &dumped)
        for shown in [
            certificate.description, certificate.debugDescription, String(reflecting: certificate), "\(certificate)",
            dumped,
        ] {
            #expect(!shown.contains("PRIVATE KEY"))
            #expect(!keyLines.contains { shown.contains($0) })
            #expect(shown.contains(Self.bundleID))
        }
    }
}
