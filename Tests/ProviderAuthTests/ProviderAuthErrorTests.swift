import ProviderAuth
import Testing

@Suite("ProviderAuthError")
struct ProviderAuthErrorTests {
    static let all: [ProviderAuthError] = [
        .keyFileMissing(path: "/etc/apnsd/AuthKey.p8"),
        .keyFileUnreadable(path: "/etc/apnsd/AuthKey.p8", reason: "permission denied"),
        .notPEM,
        .notPKCS8(label: "EC PRIVATE KEY"),
        .notAPrivateKey(label: "CERTIFICATE"),
        .encrypted,
        .malformedKey(openSSLErrors: "error:1E08010C:DECODER routines::unsupported"),
        .notEC(keyType: "RSA"),
        .notP256(curve: "secp384r1"),
        .invalidKeyId("ABC"),
        .invalidTeamId("TEAM"),
        .keyGenerationFailed(openSSLErrors: "x"),
        .signingFailed(openSSLErrors: "x"),
        .certificateFileMissing(path: "/etc/apnsd/push.p12"),
        .certificateFileUnreadable(path: "/etc/apnsd/push.p12", reason: "permission denied"),
        .notACertificate,
        .certificatePasswordRequired,
        .wrongCertificatePassword,
        .certificateWithoutPrivateKey,
        .certificateKeyMismatch,
        .legacyPKCS12Unsupported(openSSLErrors: "error:07880025:common libcrypto routines::reason(524325)"),
        .malformedCertificate(openSSLErrors: "error:0680007B:asn1 encoding routines::header too long"),
    ]

    @Test("every description is one line that says what to do", arguments: all)
    func oneActionableLine(error: ProviderAuthError) {
        #expect(!error.description.contains("\n"))
        #expect(error.description.contains(": "))
    }

    @Test("a long id (say, a pasted key) is shortened in the message")
    func longIdIsShortened() {
        let pasted = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"
        let description = ProviderAuthError.invalidKeyId(pasted).description
        #expect(!description.contains(pasted))
        #expect(description.contains("MIGHAgEAMBMG…"))
    }
}
