import ProviderAuth
import Testing

@Suite struct SHA256Tests {
    @Test func theDigestOfKnownInput() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// The token file's idempotency digest is fed a token at a time: it must equal the digest of them joined, as
    /// it was computed before (a rerun of the same file finds the same key).
    @Test func fedInPiecesItIsTheDigestOfThePiecesJoined() {
        let pieces = (0..<1_000).map { i in Array(String(repeating: String(i, radix: 16), count: i % 70).utf8) }
        let hasher = SHA256.Hasher()
        for piece in pieces { piece.withUnsafeBufferPointer { hasher.update($0) } }
        #expect(hasher.finish() == SHA256.hex(pieces.flatMap { $0 }))
        #expect(SHA256.Hasher().finish() == SHA256.hex([]))
    }
}
