/// Everything that can go wrong loading a provider key or client certificate, validating ids, or signing a provider token.
public enum ProviderAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No file exists at the configured key path.
    case keyFileMissing(path: String)
    /// The key file exists but could not be read.
    case keyFileUnreadable(path: String, reason: String)
    /// The text holds no PEM block at all.
    case notPEM
    /// The PEM block is a key, but not in PKCS#8 form (its PEM label, e.g. "EC PRIVATE KEY").
    case notPKCS8(label: String)
    /// The key is an encrypted PKCS#8 key; APNs keys are never encrypted.
    case encrypted
    /// The PEM block is not a private key at all (its PEM label, e.g. "CERTIFICATE").
    case notAPrivateKey(label: String)
    /// The PKCS#8 structure could not be decoded; carries the drained OpenSSL error queue.
    case malformedKey(openSSLErrors: String)
    /// The key is not an elliptic-curve key (e.g. "RSA").
    case notEC(keyType: String)
    /// The key is an elliptic-curve key on a curve other than P-256 (e.g. "secp384r1").
    case notP256(curve: String)
    /// The key id is not exactly 10 ASCII letters or digits.
    case invalidKeyId(String)
    /// The team id is not exactly 10 ASCII letters or digits.
    case invalidTeamId(String)
    /// OpenSSL failed to generate a key; carries the drained OpenSSL error queue.
    case keyGenerationFailed(openSSLErrors: String)
    /// OpenSSL failed to produce a signature; carries the drained OpenSSL error queue.
    case signingFailed(openSSLErrors: String)
    /// No file exists at the configured client certificate path.
    case certificateFileMissing(path: String)
    /// The client certificate file exists but could not be read.
    case certificateFileUnreadable(path: String, reason: String)
    /// The bytes are neither a PKCS#12 (.p12) file nor PEM text holding a certificate.
    case notACertificate
    /// The PKCS#12 file or the PEM private key is encrypted and no password was given.
    case certificatePasswordRequired
    /// The password does not open the PKCS#12 file (its MAC does not verify) or the encrypted PEM key.
    case wrongCertificatePassword
    /// The file holds a certificate but no private key.
    case certificateWithoutPrivateKey
    /// The private key in the file does not belong to its certificate.
    case certificateKeyMismatch
    /// The PKCS#12 file is encrypted with a legacy algorithm (RC2, from older Keychain exports) and OpenSSL's
    /// legacy provider could not be loaded; carries the drained OpenSSL error queue.
    case legacyPKCS12Unsupported(openSSLErrors: String)
    /// The PKCS#12 file or PEM text could not be decoded; carries the drained OpenSSL error queue.
    case malformedCertificate(openSSLErrors: String)

    public var description: String {
        switch self {
        case .keyFileMissing(let path):
            return
                "provider key file not found at \(path): download the .p8 key from the Apple Developer account (Keys) and point the configuration at it"
        case .keyFileUnreadable(let path, let reason):
            return
                "provider key file at \(path) cannot be read (\(reason)): check that the path names the .p8 file and that apnsd may read it"
        case .notPEM:
            return
                "provider key is not PEM text: use the .p8 file exactly as downloaded from Apple (it starts with -----BEGIN PRIVATE KEY-----)"
        case .notPKCS8(let label):
            return
                "provider key is a \"\(label)\" PEM block, not PKCS#8: convert it with `openssl pkcs8 -topk8 -nocrypt -in key.pem -out AuthKey.p8`"
        case .encrypted:
            return
                "provider key is an encrypted PKCS#8 key: decrypt it with `openssl pkcs8 -in key.p8 -out AuthKey.p8` (APNs .p8 keys are unencrypted)"
        case .notAPrivateKey(let label):
            return
                "provider key file holds a \"\(label)\" PEM block, not a private key: use the .p8 key file downloaded from Apple"
        case .malformedKey(let errors):
            return "provider key PEM does not decode as a PKCS#8 private key (\(errors)): download the .p8 key again"
        case .notEC(let keyType):
            return
                "provider key is of type \(keyType), but APNs tokens need an EC P-256 key: use the .p8 key from Apple"
        case .notP256(let curve):
            return
                "provider key is on curve \(curve), but APNs tokens need P-256 (prime256v1): use the .p8 key from Apple"
        case .invalidKeyId(let id):
            return
                "key id \"\(Self.shortened(id))\" is not 10 ASCII letters or digits: copy the Key ID shown next to the key in the Apple Developer account"
        case .invalidTeamId(let id):
            return
                "team id \"\(Self.shortened(id))\" is not 10 ASCII letters or digits: copy the Team ID from the Apple Developer account membership page"
        case .keyGenerationFailed(let errors):
            return "generating a P-256 key failed (\(errors)): check the OpenSSL installation"
        case .signingFailed(let errors):
            return
                "signing the provider token failed (\(errors)): check that the key loads with `openssl pkey -in AuthKey.p8 -noout`"
        case .certificateFileMissing(let path):
            return
                "client certificate file not found at \(path): export the APNs certificate with its key as .p12 (or PEM) and point the configuration at it"
        case .certificateFileUnreadable(let path, let reason):
            return
                "client certificate file at \(path) cannot be read (\(reason)): check that the path names the .p12 or PEM file and that apnsd may read it"
        case .notACertificate:
            return
                "client certificate is neither a PKCS#12 (.p12) file nor PEM text with a certificate: export the APNs certificate and its key from Keychain Access as .p12"
        case .certificatePasswordRequired:
            return
                "client certificate file is encrypted but no password is configured: set the certificate's password (or passwordFile)"
        case .wrongCertificatePassword:
            return
                "client certificate password is wrong: set the password the file was exported with (check with `openssl pkcs12 -in cert.p12 -noout`)"
        case .certificateWithoutPrivateKey:
            return
                "client certificate file holds no private key: export the certificate together with its key (in Keychain Access, expand the certificate and export both as .p12)"
        case .certificateKeyMismatch:
            return
                "client certificate's private key does not belong to its certificate: export the certificate and its own key together"
        case .legacyPKCS12Unsupported(let errors):
            return
                "client certificate .p12 uses a legacy algorithm (RC2) and OpenSSL's legacy provider cannot be loaded (\(errors)): install it (ossl-modules/legacy.so) or re-export with `openssl pkcs12 -legacy -in old.p12 -nodes | openssl pkcs12 -export -out new.p12`"
        case .malformedCertificate(let errors):
            return "client certificate file does not decode (\(errors)): export the certificate and its key again"
        }
    }

    // Ids are not secret, but a misconfigured value could be anything (even a pasted key), so only its start is shown.
    private static func shortened(_ id: String) -> String {
        id.count <= 16 ? id : String(id.prefix(12)) + "…"
    }
}
