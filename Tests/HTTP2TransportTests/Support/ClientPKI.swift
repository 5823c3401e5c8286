import Foundation
import HTTP2Transport
import ProviderAuth
import TestSupport

/// A throwaway client CA and a client certificate it issued (RSA, with Apple's UID/CN subject layout), made by
/// the openssl command-line tool and loaded through ProviderAuth as apnsd loads a PEM certificate file. With
/// `intermediate`, an intermediate CA issues the certificate (as Apple's WWDR CA does) and the file carries it too.
struct ClientPKI {
    static let bundleID = "com.example.app"
    static let subject = "/UID=\(bundleID)/CN=Apple Push Services: \(bundleID)"

    let caFile: String
    let certificateFile: String
    let keyFile: String
    let certificate: ClientCertificate

    init(in directory: TempDirectory, name: String = "client", intermediate: Bool = false) throws {
        caFile = directory.file("\(name)-ca.pem")
        let caKey = directory.file("\(name)-ca-key.pem")
        certificateFile = directory.file("\(name)-cert.pem")
        keyFile = directory.file("\(name)-key.pem")
        let request = directory.file("\(name).csr")
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", caKey, "-out", caFile, "-days", "30", "-subj", "/CN=apnsd test client CA",
        ])
        var issuer = (certificate: caFile, key: caKey)
        var chain = ""
        if intermediate {
            let intermediateKey = directory.file("\(name)-intermediate-key.pem")
            let intermediateFile = directory.file("\(name)-intermediate.pem")
            let extensions = try directory.write(
                "\(name)-intermediate.ext", "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
            )
            try Self.openssl([
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                intermediateKey,
                "-subj", "/CN=apnsd test intermediate CA", "-out", directory.file("\(name)-intermediate.csr"),
            ])
            try Self.openssl([
                "x509", "-req", "-in", directory.file("\(name)-intermediate.csr"), "-CA", caFile, "-CAkey", caKey,
                "-CAcreateserial", "-CAserial", directory.file("\(name)-root.srl"), "-days", "30",
                "-extfile", extensions, "-out", intermediateFile,
            ])
            issuer = (intermediateFile, intermediateKey)
            chain = try String(contentsOfFile: intermediateFile, encoding: .utf8)
        }
        try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyFile])
        try Self.openssl(["req", "-new", "-key", keyFile, "-subj", Self.subject, "-out", request])
        try Self.openssl([
            "x509", "-req", "-in", request, "-CA", issuer.certificate, "-CAkey", issuer.key, "-CAcreateserial",
            "-CAserial", directory.file("\(name).srl"), "-days", "30", "-out", certificateFile,
        ])
        // The intermediate first, as people paste chains: loading puts the certificate the key belongs to first.
        let combined =
            try chain + String(contentsOfFile: certificateFile, encoding: .utf8)
            + String(contentsOfFile: keyFile, encoding: .utf8)
        certificate = try ClientCertificate(bytes: Array(combined.utf8), password: nil)
    }

    /// What the transport presents.
    var identity: ClientIdentity {
        ClientIdentity(certificateChainPEM: certificate.certificateChainPEM, privateKeyPEM: certificate.privateKeyPEM)
    }

    private static func openssl(_ arguments: [String]) throws {
        let run = try ToolRun.run("/usr/bin/env", ["openssl"] + arguments)
        guard run.status == 0 else {
            throw NSError(
                domain: "openssl", code: Int(run.status),
                userInfo: [
                    NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed: \(run.stdout)\(run.stderr)"
                ])
        }
    }
}
