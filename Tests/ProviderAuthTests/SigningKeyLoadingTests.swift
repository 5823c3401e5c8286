import Foundation
import TestSupport
import Testing

@testable import ProviderAuth

@Suite("Loading .p8 keys", .offThePool)
struct SigningKeyLoadingTests {
    @Test("the throwaway Apple-style key loads and its public key matches openssl's")
    func loadsGoodKey() throws {
        let key = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
        let expected = try String(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.pub.pem"), encoding: .utf8)
        #expect(key.publicKeyPEM == expected)
    }

    @Test(
        "each look-alike of a .p8 key is rejected with the error that names it",
        arguments: [
            ("encrypted.p8", ProviderAuthError.encrypted),
            ("sec1.pem", .notPKCS8(label: "EC PRIVATE KEY")),
            ("p384.p8", .notP256(curve: "secp384r1")),
            ("rsa.p8", .notEC(keyType: "RSA")),
            ("ed25519.p8", .notEC(keyType: "ED25519")),
            ("garbage.p8", .notPEM),
            ("AuthKey_TESTKEY001.pub.pem", .notAPrivateKey(label: "PUBLIC KEY")),
        ])
    func rejectsLookAlikes(file: String, expected: ProviderAuthError) {
        #expect(throws: expected) {
            try SigningKey(contentsOfFile: Fixture.key(file))
        }
    }

    @Test("a missing file names its path")
    func missingFile() {
        let path = Fixture.key("AuthKey_NOSUCHKEY.p8")
        #expect(throws: ProviderAuthError.keyFileMissing(path: path)) {
            try SigningKey(contentsOfFile: path)
        }
    }

    @Test("a folder where the file should be is unreadable, not missing")
    func directoryIsUnreadable() {
        let path = Fixture.keysDirectory.path
        #expect(throws: ProviderAuthError.keyFileUnreadable(path: path, reason: "it is a directory")) {
            try SigningKey(contentsOfFile: path)
        }
    }

    @Test("EC PARAMETERS before the key are skipped, so openssl ecparam -genkey output is judged by its key block")
    func skipsParameters() throws {
        let sec1 = try String(contentsOfFile: Fixture.key("sec1.pem"), encoding: .utf8)
        let parameters = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
        #expect(throws: ProviderAuthError.notPKCS8(label: "EC PRIVATE KEY")) {
            try SigningKey(pem: parameters + sec1)
        }
        let generated = try SigningKey.generate()
        _ = try SigningKey(pem: parameters + generated.pkcs8PEM)
    }

    @Test("a PRIVATE KEY block whose DER is broken is malformed, and the error quotes no key material")
    func malformedBody() throws {
        let good = try String(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"), encoding: .utf8)
        let lines = good.split(separator: "\n").map(String.init)
        let truncated = ([lines[0], String(lines[1].prefix(40))] + [lines.last!]).joined(separator: "\n")
        do {
            _ = try SigningKey(pem: truncated)
            Issue.record("a truncated key loaded")
        } catch {
            guard case .malformedKey = error else {
                Issue.record("expected malformedKey, got \(error)")
                return
            }
            #expect(!error.description.contains(String(lines[1].prefix(12))))
        }
    }

    /// Found by FuzzKey (FUZZING.md): one base64 character changed in the private scalar of a P-256 .p8 whose
    /// public key is stored beside it. OpenSSL loaded it; the key signed tokens its own public key (and so APNs)
    /// refuses. Now refused on load. The fuzzer's input, first block (the second never mattered).
    @Test("a key whose private scalar does not match its stored public key is refused as malformed")
    func mismatchedPair() throws {
        let damaged = """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDDIx3FC08iUbBRtM
            84sgKRCqr1FMMOfuzYE2UBtMvaGhRANCAARtC/yOU2QQyMUSEDCwQqfiFfWAn1GX
            gT77lbBySF/BQknMMrJ7VTejkXGPoHMMbaZrh5QO9bkb1kCOu7Yphp30
            -----END PRIVATE KEY-----

            """
        do {
            _ = try SigningKey(pem: damaged)
            Issue.record("a key with a mismatched public key loaded")
        } catch {
            guard case .malformedKey(let errors) = error else {
                Issue.record("expected malformedKey, got \(error)")
                return
            }
            #expect(errors.contains("does not match"), "\(errors)")
            #expect(!error.description.contains("DDIx3FC08iUb"))
        }
        #expect(OpenSSLErrorQueue.drain() == "no OpenSSL error queued")
        // The same key undamaged, and one without a stored public key, still load.
        _ = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
        _ = try SigningKey(pem: try SigningKey.generate().pkcs8PEM)
    }

    @Test("a generated key round-trips through PKCS#8 PEM")
    func generatedKeyRoundTrips() throws {
        let key = try SigningKey.generate()
        let pem = key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reloaded = try SigningKey(pem: pem)
        #expect(reloaded.publicKeyPEM == key.publicKeyPEM)
        #expect(try SigningKey.generate().publicKeyPEM != key.publicKeyPEM)
    }

    @Test("openssl accepts the generated PKCS#8 key as an unencrypted P-256 key")
    func opensslReadsGeneratedKey() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("AuthKey_GENERATED1.p8").path
        try SigningKey.generate().pkcs8PEM.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try OpenSSLCLI.run(["pkey", "-in", path, "-passin", "pass:", "-noout", "-text"])
        #expect(result.status == 0)
        #expect(result.output.contains("NIST CURVE: P-256"))
    }

    @Test("the key prints without key material")
    func keyDescriptionIsRedacted() throws {
        let key = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
        #expect(key.description == "SigningKey(EC P-256)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("BEGIN"))
    }
}
