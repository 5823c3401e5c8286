/// A TLS client certificate and its key, presented on every connection of a pool (certificate-based APNs
/// authentication). The transport does not parse them: libcurl and OpenSSL do.
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The client certificate followed by any intermediate certificates, as PEM.
    public var certificateChainPEM: [UInt8]
    /// The certificate's private key as unencrypted PEM (PKCS#8 or traditional); secret: never log it.
    public var privateKeyPEM: [UInt8]

    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    public var description: String {
        "ClientIdentity(certificate chain \(certificateChainPEM.count) bytes, key redacted)"
    }

    public var debugDescription: String { description }

    /// What `dump` and debuggers show: no key bytes.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["certificateChainPEM": "\(certificateChainPEM.count) bytes", "privateKeyPEM": "redacted"],
            displayStyle: .struct)
    }
}
