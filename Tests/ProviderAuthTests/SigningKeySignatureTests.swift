import Foundation
import TestSupport
import Testing

@testable import ProviderAuth

@Suite("ES256 signatures", .offThePool)
struct SigningKeySignatureTests {
    let key: SigningKey
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)

    init() throws {
        key = try SigningKey(contentsOfFile: Fixture.key("AuthKey_TESTKEY001.p8"))
    }

    @Test("2000 signatures are all 64 raw bytes and verify, short r or s included")
    func manySignatures() throws {
        var shortCoordinates = 0
        for index in 0..<2000 {
            let signed = message + Array("\(index)".utf8)
            let raw = try key.signES256(signed)
            #expect(raw.count == 64)
            #expect(key.verifyES256(message: signed, rawSignature: raw))
            if raw[0] == 0 || raw[32] == 0 { shortCoordinates += 1 }
        }
        // About 1 in 128 signatures has a short r or s; 2000 signatures without one would mean the padding is untested.
        #expect(shortCoordinates > 0)
    }

    @Test("the raw signature is the DER one's r and s, checked with a hand-built DER")
    func rawMatchesDER() throws {
        let raw = try key.signES256(message)
        let der = HandDER.signature(fromRaw: raw)
        #expect(key.verifyES256DER(message: message, derSignature: der))
        #expect(ECDSASignature.der(fromRaw: raw) == der)
        #expect(ECDSASignature.raw(fromDER: der) == raw)
    }

    @Test("a signature fails for another message, another key, a flipped bit, or a wrong length")
    func rejectsWrongSignatures() throws {
        let raw = try key.signES256(message)
        var flipped = raw
        flipped[40] ^= 0x01
        #expect(key.verifyES256(message: message, rawSignature: raw))
        #expect(!key.verifyES256(message: message + [0x2E], rawSignature: raw))
        #expect(!(try SigningKey.generate()).verifyES256(message: message, rawSignature: raw))
        #expect(!key.verifyES256(message: message, rawSignature: flipped))
        #expect(!key.verifyES256(message: message, rawSignature: Array(raw.prefix(63))))
        #expect(!key.verifyES256(message: message, rawSignature: [UInt8](repeating: 0, count: 64)))
        #expect(!key.verifyES256DER(message: message, derSignature: raw))
    }

    @Test("a DER signature from OpenSSL verifies in both forms")
    func derSignatureVerifies() throws {
        let der = try key.signES256DER(message)
        #expect(der.first == 0x30)
        #expect(key.verifyES256DER(message: message, derSignature: der))
        let raw = try #require(ECDSASignature.raw(fromDER: der))
        #expect(key.verifyES256(message: message, rawSignature: raw))
    }

    @Test("the openssl CLI verifies our signature, and we verify the CLI's")
    func interoperatesWithOpenSSLCLI() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let messageFile = directory.appendingPathComponent("message").path
        let ourSignature = directory.appendingPathComponent("ours.der").path
        let theirSignature = directory.appendingPathComponent("theirs.der").path
        try Data(message).write(to: URL(fileURLWithPath: messageFile))
        try Data(HandDER.signature(fromRaw: key.signES256(message))).write(to: URL(fileURLWithPath: ourSignature))

        let verified = try OpenSSLCLI.run([
            "dgst", "-sha256", "-verify", Fixture.key("AuthKey_TESTKEY001.pub.pem"), "-signature", ourSignature,
            messageFile,
        ])
        #expect(verified.status == 0, "\(verified.output)")

        let signed = try OpenSSLCLI.run([
            "dgst", "-sha256", "-sign", Fixture.key("AuthKey_TESTKEY001.p8"), "-out", theirSignature, messageFile,
        ])
        try #require(signed.status == 0, "\(signed.output)")
        let theirs = try [UInt8](Data(contentsOf: URL(fileURLWithPath: theirSignature)))
        #expect(key.verifyES256DER(message: message, derSignature: theirs))
        #expect(!key.verifyES256DER(message: message + [0], derSignature: theirs))
    }

    @Test("signing leaves no error behind on OpenSSL's queue after a failed verification")
    func failedVerificationDoesNotPoisonSigning() throws {
        #expect(!key.verifyES256DER(message: message, derSignature: [0x30, 0x00]))
        let raw = try key.signES256(message)
        #expect(key.verifyES256(message: message, rawSignature: raw))
    }
}
