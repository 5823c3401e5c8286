internal import COpenSSL
import Foundation

/// An EC P-256 private key for ES256 provider tokens, loaded from an Apple .p8 file or generated for tests.
public final class SigningKey: @unchecked Sendable, CustomStringConvertible {
    // Never mutated after init, and OpenSSL 3 allows concurrent signing with one EVP_PKEY: hence @unchecked Sendable.
    private let pkey: OpaquePointer

    private init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Loads the .p8 file at `path` (unencrypted PKCS#8 PEM, EC P-256).
    public convenience init(contentsOfFile path: String) throws(ProviderAuthError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .keyFileMissing(path: path)
        }
        guard !isDirectory.boolValue else {
            throw .keyFileUnreadable(path: path, reason: "it is a directory")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .keyFileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        // A .p8 key is about 250 bytes: read at most the limit and one byte more, whatever the file holds.
        var bytes: [UInt8] = []
        while bytes.count <= Self.maximumFileBytes {
            let chunk = handle.readData(ofLength: Self.maximumFileBytes + 1 - bytes.count)
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
        }
        guard bytes.count <= Self.maximumFileBytes else {
            throw .keyFileUnreadable(
                path: path, reason: "it is larger than \(Self.maximumFileBytes / 1024) KiB, which no .p8 key is")
        }
        try self.init(pemBytes: bytes)
    }

    /// The largest key file read (a .p8 file is about 250 bytes).
    public static let maximumFileBytes = 64 * 1024

    /// Parses the text of a .p8 file: "-----BEGIN PRIVATE KEY-----", unencrypted PKCS#8, EC P-256.
    public convenience init(pem: String) throws(ProviderAuthError) {
        try self.init(pemBytes: Array(pem.utf8))
    }

    private convenience init(pemBytes: [UInt8]) throws(ProviderAuthError) {
        self.init(taking: try PKCS8PEM.privateKey(from: pemBytes))
    }

    /// A fresh throwaway P-256 key, for tests and the mock server.
    public static func generate() throws(ProviderAuthError) -> SigningKey {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .keyGenerationFailed(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            throw .keyGenerationFailed(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        return SigningKey(taking: key)
    }

    /// Lends the EVP_PKEY to OpenSSL calls, keeping the key alive meanwhile.
    func withPKey<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(self) {} }
        return try body(pkey)
    }

    public var description: String {
        "SigningKey(EC P-256)"
    }
}
