import Testing
import ProviderAuth

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
