import Foundation

/// An APNs client certificate and its private key (certificate-based provider authentication), loaded from a
/// PKCS#12 (.p12) file or from PEM text, and handed to the transport as PEM bytes.
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The certificate followed by any chain certificates from the file, as PEM ("-----BEGIN CERTIFICATE-----").
    public let certificateChainPEM: [UInt8]
    /// The private key as unencrypted PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"); secret: never log it.
    public let privateKeyPEM: [UInt8]
    /// The start of the certificate's validity.
    public let notBefore: Date
    /// The end of the certificate's validity.
    public let notAfter: Date
    /// The subject's common name, e.g. "Apple Push Services: com.example.app".
    public let subjectCommonName: String?
    /// The subject's UID (OID 0.9.2342.19200300.100.1.1), where Apple puts the bundle id.
    public let subjectUID: String?

    init(
        certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], notBefore: Date, notAfter: Date,
        subjectCommonName: String?, subjectUID: String?
    ) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subjectCommonName = subjectCommonName
        self.subjectUID = subjectUID
    }

    /// The largest file read (a .p12 with its chain is a few KiB).
    public static let maximumFileBytes = 1024 * 1024

    /// Loads a .p12 file, or a PEM file with the certificate (and chain) and its key; `password` opens the
    /// .p12 or the encrypted PEM key (nil or empty for none).
    public init(contentsOfFile path: String, password: String?) throws(ProviderAuthError) {
        let bytes = try Self.read(path)
        try self.init(bytes: bytes, password: password)
    }

    /// Decodes the bytes of a .p12 file (DER) or of a PEM file, whichever they are.
    public init(bytes: [UInt8], password: String?) throws(ProviderAuthError) {
        if Self.looksLikePEM(bytes) {
            self = try Self.fromPEM(bytes, password: password)
        } else {
            self = try Self.fromPKCS12(bytes, password: password)
        }
    }

    /// Whole days until `notAfter` (rounded down): negative exactly when the certificate has expired at `now`.
    public func daysLeft(now: Date) -> Int {
        Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
    }

    public var description: String {
        let name = subjectUID ?? subjectCommonName ?? "no subject name"
        return "ClientCertificate(\(name), expires \(Self.day(notAfter)), key redacted)"
    }

    public var debugDescription: String { description }

    /// What `dump` and debuggers show: everything but the key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "subjectUID": subjectUID as Any, "subjectCommonName": subjectCommonName as Any,
                "notBefore": notBefore, "notAfter": notAfter,
                "certificateChainPEM": "\(certificateChainPEM.count) bytes", "privateKeyPEM": "redacted",
            ], displayStyle: .struct)
    }

    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    private static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }

    private static func read(_ path: String) throws(ProviderAuthError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .certificateFileMissing(path: path)
        }
        guard !isDirectory.boolValue else {
            throw .certificateFileUnreadable(path: path, reason: "it is a directory")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .certificateFileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        // Read at most the limit and one byte more, whatever the file holds.
        var bytes: [UInt8] = []
        while bytes.count <= maximumFileBytes {
            let chunk = handle.readData(ofLength: maximumFileBytes + 1 - bytes.count)
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
        }
        guard bytes.count <= maximumFileBytes else {
            throw .certificateFileUnreadable(
                path: path, reason: "it is larger than \(maximumFileBytes / 1024) KiB, which no certificate file is")
        }
        return bytes
    }
}
