import APNs
import Testing

/// docs/APNS.md: the path carries the hex of the token bytes; historically 64 characters, but Apple says not to
/// assume a length: accept even-length hex and lowercase it.
@Suite("DeviceToken")
struct DeviceTokenTests {
    static let hex64 = "5a0bc2e1d94f8367a1c0e2b4d6f8091a3c5e7f9b1d3f5a7c9e0b2d4f6a8c0e1f"

    @Test("accepts even-length hex of any usual size", arguments: [32, 64, 100, 160])
    func acceptsLengths(length: Int) throws {
        let hex = String(repeating: "0123456789abcdef", count: 10).prefix(length)
        let token = try DeviceToken(hex)
        #expect(token.hex == String(hex))
        #expect(token.hex.count == length)
    }

    @Test("tokens order, compare and hash as their hex does, whatever their length and however they were read")
    func orderFollowsTheHex() throws {
        var texts = (0..<200).map { i in
            String((0..<[64, 64, 64, 32, 66][i % 5]).map { _ in "0123456789abcdef".randomElement()! })
        }
        texts += [
            "f" + String(repeating: "0", count: 63), String(repeating: "f", count: 64), "00" + Self.hex64.dropLast(2),
        ]
        texts += [String(Self.hex64.prefix(32)), Self.hex64 + "00"]
        let tokens = try texts.map { try DeviceToken($0) }
        #expect(tokens.sorted().map(\.hex) == texts.sorted())
        for (token, text) in zip(tokens, texts) {
            #expect(DeviceToken(normalizedHex: Array(text.utf8)[...]) == token)
            #expect(try DeviceToken(text.uppercased()).hashValue == token.hashValue)
            #expect(token.hexLength == text.count)
            #expect(token.withHexBytes { Array($0) } == Array(text.utf8))
            #expect(token.words.map { DeviceToken(words: $0) } == (text.count == 64 ? token : nil))
            var prefix = Array(text.utf8.prefix(16)) + Array(repeating: 0, count: max(0, 16 - text.count))
            let words = token.hexPrefix
            for word in [words.high, words.low] {
                #expect(prefix.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == word)
                prefix.removeFirst(8)
            }
        }
        #expect(Set(tokens).count == Set(texts).count)
        #expect(MemoryLayout<DeviceToken>.size <= 40)
    }

    @Test("a lowercase token is kept as is")
    func lowercase() throws {
        #expect(try DeviceToken(Self.hex64).hex == Self.hex64)
    }

    @Test(
        "uppercase and mixed-case hex is normalised to lowercase",
        arguments: [
            "5A0BC2E1D94F8367A1C0E2B4D6F8091A3C5E7F9B1D3F5A7C9E0B2D4F6A8C0E1F",
            "5a0BC2e1D94f8367A1c0E2b4D6f8091A3c5E7f9B1d3F5a7C9e0B2d4F6a8C0e1F",
        ])
    func uppercase(input: String) throws {
        #expect(try DeviceToken(input).hex == Self.hex64)
        #expect(try DeviceToken(input) == DeviceToken(Self.hex64))
    }

    @Test(
        "surrounding whitespace is trimmed",
        arguments: [
            " \(hex64)", "\(hex64) ", "\t\(hex64)\t", "\(hex64)\n", "\(hex64)\r\n", "\n\(hex64)", "  \(hex64)  \n",
        ])
    func trimmed(input: String) throws {
        #expect(try DeviceToken(input).hex == Self.hex64)
    }

    static let refusedInputs: [String] = {
        let head62 = String(hex64.dropLast(2))
        var inputs: [String] = ["", " ", "\n", "abc", "--"]
        inputs.append(String(hex64.dropLast()))  // odd length 63
        inputs.append(head62 + "zz")  // non-hex
        inputs.append(head62 + "g0")
        inputs.append(head62 + "é")  // non-ASCII
        inputs.append("0x" + String(hex64.dropFirst(2)))  // a 0x prefix is not hex
        inputs.append(String(hex64.prefix(32)) + " " + String(hex64.suffix(31)))  // inner space
        return inputs
    }()

    @Test("odd length, non-hex, inner whitespace and empty input are refused", arguments: refusedInputs)
    func refused(input: String) {
        #expect(throws: APNsError.self) { try DeviceToken(input) }
        do {
            _ = try DeviceToken(input)
        } catch {
            guard case .invalidDeviceToken = error else {
                Issue.record("expected invalidDeviceToken, got \(error)")
                return
            }
        }
    }

    @Test("the odd-length error names the length")
    func oddLengthMessage() {
        #expect {
            try DeviceToken(String(Self.hex64.dropLast()))
        } throws: { error in
            guard let error = error as? APNsError, case .invalidDeviceToken(let why) = error else { return false }
            return why.contains("63")
        }
    }

    @Test("the description is shortened: never the whole token", arguments: [64, 100, 160])
    func descriptionShortened(length: Int) throws {
        let hex = String(String(repeating: "fedcba9876543210", count: 10).prefix(length))
        let token = try DeviceToken(hex)
        #expect(!token.description.contains(hex))
        #expect(token.description.count < hex.count)
        #expect(token.description.hasPrefix(String(hex.prefix(4))))
        #expect("\(token)" == token.description)
    }

    @Test("tokens compare and hash by their normalised hex")
    func equality() throws {
        let set: Set<DeviceToken> = [try DeviceToken(Self.hex64), try DeviceToken(Self.hex64.uppercased())]
        #expect(set.count == 1)
        #expect(try DeviceToken("00") < DeviceToken("ff"))
    }
}
