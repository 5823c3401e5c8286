import APNs
internal import COpenSSL

/// What a connection's TLS client certificate is worth, judged once after the handshake the way APNs reads Apple's
/// push certificates: the bundle id is the subject's UID, the environments are marked by Apple's extensions.
enum ClientCertificate: Equatable {
    /// Not issued by the configured CA, expired or not yet valid, or not a push certificate (no UID, or neither
    /// environment extension): every request it carries gets 403 BadCertificate.
    case bad(String)
    /// A good certificate for `bundleID`, valid in `environments`.
    case valid(bundleID: String, environments: Set<Environment>)

    /// Subject UID (userId, 0.9.2342.19200300.100.1.1): the bundle id in Apple's certificates.
    private static let developmentOID = "1.2.840.113635.100.6.3.1"
    private static let productionOID = "1.2.840.113635.100.6.3.2"

    /// The certificate the client presented on `ssl`, judged; nil when it presented none.
    static func judge(_ ssl: OpaquePointer) -> ClientCertificate? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        // The handshake accepts any certificate (the verify callback says yes) so that a bad one is answered per
        // request, as APNs does; OpenSSL still records what chain verification found.
        let result = SSL_get_verify_result(ssl)
        guard result == X509_V_OK else {
            return .bad(String(cString: X509_verify_cert_error_string(result)))
        }
        guard let bundleID = subjectUID(certificate), !bundleID.isEmpty else {
            return .bad("no subject UID (bundle id)")
        }
        var environments: Set<Environment> = []
        if hasExtension(certificate, developmentOID) { environments.insert(.development) }
        if hasExtension(certificate, productionOID) { environments.insert(.production) }
        guard !environments.isEmpty else { return .bad("no APNs environment extension") }
        return .valid(bundleID: bundleID, environments: environments)
    }

    /// The APNs answer for a request for `topic` (nil: the request named none, and the certificate's bundle id is
    /// used) on a host of `environment`; nil when the request may proceed.
    func problem(topic: String?, environment: Environment) -> (Int, Reason)? {
        switch self {
        case .bad: return (403, .badCertificate)
        case .valid(let bundleID, let environments):
            guard environments.contains(environment) else { return (403, .badCertificateEnvironment) }
            if let topic, PushType.bundleID(ofTopic: topic) != bundleID { return (400, .topicDisallowed) }
            return nil
        }
    }

    private static func subjectUID(_ certificate: OpaquePointer) -> String? {
        guard let name = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry)
        else {
            return nil
        }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        defer { _ = apnsd_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    private static func hasExtension(_ certificate: OpaquePointer, _ oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(certificate, object, -1) >= 0
    }
}
