internal import COpenSSL
import Foundation
import ProviderAuth

/// Why a TLS identity could not be generated or loaded, with the drained OpenSSL error queue and what to do.
public struct TLSIdentityError: Error, CustomStringConvertible {
    public let description: String

    init(_ problem: String, fix: String, openSSL: Bool = true) {
        let errors = openSSL ? " (\(OpenSSLErrorQueue.drain()))" : ""
        description = "\(problem)\(errors): \(fix)"
    }
}

/// A server certificate and key for the mock's TLS listener, plus the CA that clients must trust.
public struct TLSIdentity: Sendable, CustomStringConvertible, CustomReflectable {
    /// The server certificate first, then any intermediates, as PEM; the root is `caCertificatePEM`.
    public let certificatePEM: String
    /// The server's private key as PEM; never log it.
    public let privateKeyPEM: String
    /// The CA certificate clients pass to `--cacert`, when known.
    public let caCertificatePEM: String?

    /// Checks that the PEM texts parse and that the key belongs to the (first) certificate.
    public init(certificatePEM: String, privateKeyPEM: String, caCertificatePEM: String? = nil) throws(TLSIdentityError)
    {
        let certificate = try PEMObjects.certificate(certificatePEM, what: "server certificate")
        defer { X509_free(certificate) }
        let key = try PEMObjects.privateKey(privateKeyPEM)
        defer { EVP_PKEY_free(key) }
        guard X509_check_private_key(certificate, key) == 1 else {
            throw TLSIdentityError(
                "the private key does not belong to the server certificate",
                fix: "pass the key file that was generated with this certificate")
        }
        if let caCertificatePEM {
            X509_free(try PEMObjects.certificate(caCertificatePEM, what: "CA certificate"))
        }
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.caCertificatePEM = caCertificatePEM
    }

    /// Loads PEM files: the server certificate (chain), its private key, and optionally the CA clients trust.
    public init(certificateFile: String, keyFile: String, caCertificateFile: String? = nil) throws(TLSIdentityError) {
        try self.init(
            certificatePEM: Self.read(certificateFile, what: "certificate"),
            privateKeyPEM: Self.read(keyFile, what: "key"),
            caCertificatePEM: caCertificateFile.map { (path) throws(TLSIdentityError) in
                try Self.read(path, what: "CA certificate")
            }
        )
    }

    /// A fresh throwaway CA and a server certificate it signed for `hosts` (IP addresses or DNS names), all P-256.
    public static func throwaway(hosts: [String] = ["127.0.0.1", "localhost", "::1"]) throws(TLSIdentityError)
        -> TLSIdentity
    {
        let subjectAltName = try SubjectAltName.value(for: hosts)
        let caKey = try CertificateFactory.newP256Key()
        defer { EVP_PKEY_free(caKey) }
        let ca = try CertificateFactory.certificate(
            commonName: "apns-mock throwaway CA", key: caKey, issuer: nil, issuerKey: caKey, validDays: 3650,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        defer { X509_free(ca) }
        let serverKey = try CertificateFactory.newP256Key()
        defer { EVP_PKEY_free(serverKey) }
        let server = try CertificateFactory.certificate(
            commonName: hosts.first ?? "apns-mock", key: serverKey, issuer: ca, issuerKey: caKey, validDays: 730,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, subjectAltName),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        defer { X509_free(server) }
        return try TLSIdentity(
            certificatePEM: PEMObjects.text { PEM_write_bio_X509($0, server) },
            privateKeyPEM: PEMObjects.text(secure: true) {
                PEM_write_bio_PKCS8PrivateKey($0, serverKey, nil, nil, 0, nil, nil)
            },
            caCertificatePEM: PEMObjects.text { PEM_write_bio_X509($0, ca) }
        )
    }

    public var description: String {
        "TLSIdentity(certificate: \(certificatePEM.utf8.count) bytes of PEM, key: <redacted>, CA: \(caCertificatePEM == nil ? "none" : "included"))"
    }

    // dump() walks the mirror: keep the private key out of it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "certificatePEM": certificatePEM, "privateKeyPEM": "<redacted>",
                "caCertificatePEM": caCertificatePEM as Any,
            ])
    }

    private static func read(_ path: String, what: String) throws(TLSIdentityError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TLSIdentityError(
                "cannot read the TLS \(what) file at \(path) (\(error.localizedDescription))",
                fix: "check the path and its permissions", openSSL: false)
        }
    }
}

/// Builds the subjectAltName extension value ("IP:127.0.0.1,DNS:localhost") from host names and addresses.
private enum SubjectAltName {
    static func value(for hosts: [String]) throws(TLSIdentityError) -> String {
        guard !hosts.isEmpty else {
            throw TLSIdentityError(
                "no host names for the certificate", fix: "pass at least one host, e.g. 127.0.0.1", openSSL: false)
        }
        var entries: [String] = []
        for host in hosts {
            // A comma would smuggle extra entries into OpenSSL's extension syntax.
            guard !host.isEmpty, !host.contains(","), !host.contains(where: \.isWhitespace) else {
                throw TLSIdentityError(
                    "host \"\(host)\" is not a DNS name or IP address",
                    fix: "pass names like localhost or addresses like 127.0.0.1", openSSL: false)
            }
            entries.append((isIPAddress(host) ? "IP:" : "DNS:") + host)
        }
        return entries.joined(separator: ",")
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}

/// Makes P-256 keys and X.509 v3 certificates with OpenSSL; every function returns objects the caller frees.
private enum CertificateFactory {
    static func newP256Key() throws(TLSIdentityError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw TLSIdentityError("creating a key context failed", fix: "check the OpenSSL installation")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            throw TLSIdentityError("generating a P-256 key failed", fix: "check the OpenSSL installation")
        }
        return key
    }

    /// A certificate for `key`, signed by `issuerKey`; `issuer` nil means self-signed.
    static func certificate(
        commonName: String, key: OpaquePointer, issuer: OpaquePointer?, issuerKey: OpaquePointer,
        validDays: Int, extensions: [(Int32, String)]
    ) throws(TLSIdentityError) -> OpaquePointer {
        guard let certificate = X509_new() else {
            throw TLSIdentityError("X509_new failed", fix: "check the OpenSSL installation")
        }
        do throws(TLSIdentityError) {
            try fill(certificate, commonName: commonName, key: key, issuer: issuer, validDays: validDays)
            try addExtensions(extensions, to: certificate, issuer: issuer ?? certificate)
            guard X509_sign(certificate, issuerKey, EVP_sha256()) > 0 else {
                throw TLSIdentityError("signing the certificate failed", fix: "check the OpenSSL installation")
            }
            return certificate
        } catch {
            X509_free(certificate)
            throw error
        }
    }

    private static func fill(
        _ certificate: OpaquePointer, commonName: String, key: OpaquePointer, issuer: OpaquePointer?, validDays: Int
    ) throws(TLSIdentityError) {
        let name = X509_get_subject_name(certificate)
        let oneDay: Int = 24 * 60 * 60
        // Back-dated a day so clients with a slightly slow clock accept it at once.
        guard X509_set_version(certificate, Int(X509_VERSION_3)) == 1,
            setRandomSerial(certificate),
            X509_gmtime_adj(X509_getm_notBefore(certificate), -oneDay) != nil,
            X509_time_adj_ex(X509_getm_notAfter(certificate), Int32(validDays), 0, nil) != nil,
            addEntry("O", "apns-mock throwaway", to: name),
            addEntry("CN", commonName, to: name),
            X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0) } ?? name) == 1,
            X509_set_pubkey(certificate, key) == 1
        else {
            throw TLSIdentityError("filling in the certificate failed", fix: "check the OpenSSL installation")
        }
    }

    private static func setRandomSerial(_ certificate: OpaquePointer) -> Bool {
        guard let serial = BN_new() else { return false }
        defer { BN_free(serial) }
        // 127 random bits: positive, unique in practice, within the 20-byte limit of RFC 5280.
        return BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1
            && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate)) != nil
    }

    private static func addEntry(_ field: String, _ value: String, to name: OpaquePointer?) -> Bool {
        Array(value.utf8).withUnsafeBufferPointer { bytes in
            X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes.baseAddress, Int32(bytes.count), -1, 0) == 1
        }
    }

    private static func addExtensions(
        _ extensions: [(Int32, String)], to certificate: OpaquePointer, issuer: OpaquePointer
    ) throws(TLSIdentityError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let `extension` = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSIdentityError("building certificate extension \(value) failed", fix: "check the host names")
            }
            defer { X509_EXTENSION_free(`extension`) }
            guard X509_add_ext(certificate, `extension`, -1) == 1 else {
                throw TLSIdentityError(
                    "adding certificate extension \(value) failed", fix: "check the OpenSSL installation")
            }
        }
    }
}

/// Parses and prints PEM with OpenSSL; parsed objects are returned for the caller to free.
private enum PEMObjects {
    static func certificate(_ pem: String, what: String) throws(TLSIdentityError) -> OpaquePointer {
        let parsed = withBIO(pem) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let parsed else {
            throw TLSIdentityError(
                "the \(what) is not a PEM certificate", fix: "pass a file starting with -----BEGIN CERTIFICATE-----")
        }
        return parsed
    }

    static func privateKey(_ pem: String) throws(TLSIdentityError) -> OpaquePointer {
        // The callback refuses to supply a password; without it OpenSSL would prompt on the terminal for an encrypted key.
        let parsed = withBIO(pem) { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }
        guard let parsed else {
            throw TLSIdentityError(
                "the TLS key is not an unencrypted PEM private key",
                fix: "pass the key file generated with the certificate, unencrypted")
        }
        return parsed
    }

    static func text(secure: Bool = false, write: (OpaquePointer) -> Int32) throws(TLSIdentityError) -> String {
        guard let bio = BIO_new(secure ? BIO_s_secmem() : BIO_s_mem()) else {
            throw TLSIdentityError("BIO_new failed", fix: "check the OpenSSL installation")
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            throw TLSIdentityError("writing PEM failed", fix: "check the OpenSSL installation")
        }
        var start: UnsafeMutablePointer<CChar>?
        let length = apnsd_BIO_get_mem_data(bio, &start)
        guard let start, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
    }

    private static func withBIO(_ pem: String, _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        OpenSSLErrorQueue.clear()
        return Array(pem.utf8).withUnsafeBytes { bytes in
            // A memory BIO reads the buffer in place, so parsing happens inside this closure.
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(clamping: bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
