import Foundation

/// Client certificates, keys and .p12 files made by the openssl command-line tool, in a scratch folder.
extension OpenSSLCLI {
    struct CommandFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let output: String
        var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    /// A certificate and its key, as PEM files.
    struct Issued {
        let certificate: String
        let key: String
    }

    /// Runs openssl and throws its output when it fails.
    @discardableResult
    static func succeed(_ arguments: [String]) throws -> String {
        let result = try run(arguments)
        guard result.status == 0 else { throw CommandFailed(arguments: arguments, output: result.output) }
        return result.output
    }

    /// A self-signed CA (EC P-256) named `name` in `directory`.
    static func certificateAuthority(in directory: URL, name: String = "ca") throws -> Issued {
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(name).pem").path,
            key: directory.appendingPathComponent("\(name)-key.pem").path)
        try succeed([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", issued.key, "-out", issued.certificate, "-days", "3650", "-subj", "/CN=apnsd test CA \(name)",
        ])
        return issued
    }

    /// A client certificate with an RSA key (as Apple issues them) for `subject` (e.g. "/UID=com.example.app/CN=…"),
    /// valid from now for `days` (-1: it expired a day ago), signed by `ca` or else self-signed. With `keyPassword`
    /// the key file is encrypted PKCS#8.
    static func clientCertificate(
        in directory: URL, name: String, subject: String, days: Int = 365,
        ca: Issued? = nil, keyPassword: String? = nil
    ) throws -> Issued {
        let key = directory.appendingPathComponent("\(name)-key.pem").path
        let request = directory.appendingPathComponent("\(name).csr").path
        let certificate = directory.appendingPathComponent("\(name).pem").path
        try succeed(
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key]
                + (keyPassword.map { ["-aes-256-cbc", "-pass", "pass:\($0)"] } ?? []))
        let keyPass = keyPassword.map { ["-passin", "pass:\($0)"] } ?? []
        try succeed(["req", "-new", "-utf8", "-key", key, "-subj", subject, "-out", request] + keyPass)
        // `openssl x509 -req` allows -days -1, the one way to a certificate that has already expired.
        var sign = ["x509", "-req", "-in", request, "-days", String(days), "-out", certificate]
        if let ca {
            sign += [
                "-CA", ca.certificate, "-CAkey", ca.key, "-CAcreateserial",
                "-CAserial", directory.appendingPathComponent("\(name).srl").path,
            ]
        } else {
            sign += ["-signkey", key] + keyPass
        }
        try succeed(sign)
        return Issued(certificate: certificate, key: key)
    }

    /// A .p12 of `issued` (plus `chain` certificates) under `password`; `legacy` uses RC2-40 and 3DES as older
    /// Keychain exports do, which OpenSSL 3 reads only with its legacy provider.
    static func pkcs12(
        in directory: URL, name: String, _ issued: Issued, chain: [String] = [], password: String,
        keyPassword: String? = nil, legacy: Bool = false, withKey: Bool = true
    ) throws -> String {
        let path = directory.appendingPathComponent("\(name).p12").path
        var arguments = ["pkcs12", "-export", "-in", issued.certificate, "-out", path, "-passout", "pass:\(password)"]
        arguments += withKey ? ["-inkey", issued.key] : ["-nokeys"]
        if let keyPassword { arguments += ["-passin", "pass:\(keyPassword)"] }
        for certificate in chain { arguments += ["-certfile", certificate] }
        if legacy { arguments.append("-legacy") }
        try succeed(arguments)
        return path
    }

    /// The subject of the first certificate in the PEM text at `path`, as openssl prints it.
    static func subject(ofCertificateIn path: String) throws -> String {
        try succeed(["x509", "-in", path, "-noout", "-subject", "-nameopt", "RFC2253"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
