internal import COpenSSL
import Foundation

extension ClientCertificate {
    /// Builds the value from decoded OpenSSL objects, which the caller keeps owning: checks that `key` belongs
    /// to `leaf`, writes both as PEM, and reads the validity dates and subject names.
    static func assemble(leaf: OpaquePointer, key: OpaquePointer, chain: [OpaquePointer]) throws(ProviderAuthError)
        -> ClientCertificate
    {
        guard X509_check_private_key(leaf, key) == 1 else {
            OpenSSLErrorQueue.clear()
            throw .certificateKeyMismatch
        }
        var chainPEM: [UInt8] = []
        for certificate in [leaf] + chain {
            chainPEM += try pem(into: BIO_s_mem()) { PEM_write_bio_X509($0, certificate) }
        }
        // Secure-memory BIO: the buffer that held the private key is wiped when freed.
        let keyPEM = try pem(into: BIO_s_secmem()) { PEM_write_bio_PKCS8PrivateKey($0, key, nil, nil, 0, nil, nil) }
        guard let notBefore = date(X509_get0_notBefore(leaf)), let notAfter = date(X509_get0_notAfter(leaf)) else {
            throw .malformedCertificate(openSSLErrors: "its validity dates do not decode: \(OpenSSLErrorQueue.drain())")
        }
        let subject = X509_get_subject_name(leaf)
        return ClientCertificate(
            certificateChainPEM: chainPEM, privateKeyPEM: keyPEM, notBefore: notBefore, notAfter: notAfter,
            subjectCommonName: subject.flatMap { entry(NID_commonName, of: $0) },
            subjectUID: subject.flatMap { entry(NID_userId, of: $0) })
    }

    private static func pem(into method: OpaquePointer?, write: (OpaquePointer) -> Int32) throws(ProviderAuthError)
        -> [UInt8]
    {
        guard let bio = BIO_new(method) else {
            throw .malformedCertificate(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            throw .malformedCertificate(openSSLErrors: "writing it as PEM failed: \(OpenSSLErrorQueue.drain())")
        }
        var start: UnsafeMutablePointer<CChar>?
        let length = apnsd_BIO_get_mem_data(bio, &start)
        guard let start, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: length))
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// The first entry of type `nid` in `name` as UTF-8 text.
    private static func entry(_ nid: Int32, of name: OpaquePointer) -> String? {
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry)
        else {
            return nil
        }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { _ = apnsd_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }
}
