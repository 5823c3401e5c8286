import APNsMock
import Foundation
import TestSupport
import Testing

@Suite("TLSIdentity", .offThePool)
final class TLSIdentityTests {
    let directory: URL
    let identity: TLSIdentity

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "TLSIdentityTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        identity = try TLSIdentity.throwaway()
        try identity.certificatePEM.write(to: path("server.pem"), atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(to: path("server.key"), atomically: true, encoding: .utf8)
        try #require(identity.caCertificatePEM).write(to: path("ca.pem"), atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    private func openssl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = try ChildProcess(
            "/usr/bin/env", ["openssl"] + arguments, stdout: .pipe, stderr: .standardOutput)
        let output = process.readToEnd().stdout
        process.wait()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test("openssl verifies the server certificate against the CA for 127.0.0.1, ::1 and localhost as a TLS server")
    func verifiesAgainstCA() throws {
        let base = ["verify", "-x509_strict", "-purpose", "sslserver", "-CAfile", path("ca.pem").path]
        for check in [["-verify_ip", "127.0.0.1"], ["-verify_ip", "::1"], ["-verify_hostname", "localhost"]] {
            let result = try openssl(base + check + [path("server.pem").path])
            #expect(result.status == 0, "\(check): \(result.output)")
        }
        let wrongHost = try openssl(base + ["-verify_hostname", "example.com", path("server.pem").path])
        #expect(wrongHost.status != 0)
    }

    @Test("the server certificate names its hosts in subjectAltName and is no CA")
    func serverExtensions() throws {
        let result = try openssl([
            "x509", "-in", path("server.pem").path, "-noout", "-ext",
            "subjectAltName,basicConstraints,extendedKeyUsage",
        ])
        #expect(result.status == 0)
        #expect(result.output.contains("IP Address:127.0.0.1"))
        #expect(result.output.contains("DNS:localhost"))
        #expect(result.output.contains("IP Address:0:0:0:0:0:0:0:1"))
        #expect(result.output.contains("CA:FALSE"))
        #expect(result.output.contains("TLS Web Server Authentication"))
    }

    @Test("the CA is a CA that may sign certificates, back-dated a day")
    func caExtensions() throws {
        let result = try openssl([
            "x509", "-in", path("ca.pem").path, "-noout", "-ext", "basicConstraints,keyUsage", "-checkend", "0",
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("CA:TRUE"))
        #expect(result.output.contains("Certificate Sign"))
        let dates = try openssl(["x509", "-in", path("ca.pem").path, "-noout", "-startdate"])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let text = dates.output.replacingOccurrences(of: "notBefore=", with: "").trimmingCharacters(
            in: .whitespacesAndNewlines
        )
        .replacingOccurrences(of: "  ", with: " ")
        let notBefore = try #require(formatter.date(from: text), "\(text)")
        #expect(Date().timeIntervalSince(notBefore) > 23 * 3600)
    }

    @Test("the PEM files load back, and a key from another identity is refused")
    func loadsFiles() throws {
        let loaded = try TLSIdentity(
            certificateFile: path("server.pem").path, keyFile: path("server.key").path,
            caCertificateFile: path("ca.pem").path)
        #expect(loaded.certificatePEM == identity.certificatePEM)
        #expect(loaded.caCertificatePEM == identity.caCertificatePEM)
        try TLSIdentity.throwaway().privateKeyPEM.write(to: path("other.key"), atomically: true, encoding: .utf8)
        #expect(throws: TLSIdentityError.self) {
            try TLSIdentity(certificateFile: path("server.pem").path, keyFile: path("other.key").path)
        }
        #expect(throws: TLSIdentityError.self) {
            try TLSIdentity(certificateFile: path("missing.pem").path, keyFile: path("server.key").path)
        }
    }

    @Test("two throwaway identities have different CAs and serials")
    func fresh() throws {
        let other = try TLSIdentity.throwaway()
        #expect(other.caCertificatePEM != identity.caCertificatePEM)
        try other.certificatePEM.write(to: path("other.pem"), atomically: true, encoding: .utf8)
        let crossed = try openssl(["verify", "-CAfile", path("ca.pem").path, path("other.pem").path])
        #expect(crossed.status != 0)
    }

    @Test("hosts that would inject extensions are refused", arguments: [["127.0.0.1,DNS:evil.example"], [""], []])
    func badHosts(hosts: [String]) {
        #expect(throws: TLSIdentityError.self) {
            try TLSIdentity.throwaway(hosts: hosts)
        }
    }

    @Test("the identity prints without its private key")
    func redacted() {
        var dumped = ""
        dump(identity, to: &dumped)
        #expect(!identity.description.contains("PRIVATE KEY"))
        #expect(!dumped.contains("PRIVATE KEY"))
    }
}
