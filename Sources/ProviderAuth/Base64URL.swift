/// Base64url without padding (RFC 4648 §5), the encoding of every JWT segment.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() {
            table[Int(symbol)] = UInt8(value)
        }
        return table
    }()

    /// The base64url text of `bytes`, without "=" padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [symbol(chunk >> 18), symbol(chunk >> 12), symbol(chunk >> 6), symbol(chunk)]
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output += [symbol(chunk >> 18), symbol(chunk >> 12)]
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [symbol(chunk >> 18), symbol(chunk >> 12), symbol(chunk >> 6)]
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of unpadded base64url `text`, or nil if it has padding, a character outside the alphabet,
    /// an impossible length, or non-zero unused bits (so every byte string has exactly one accepted spelling).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in input {
            let value = values[Int(symbol)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }
        return output
    }

    private static func symbol(_ sextet: UInt32) -> UInt8 {
        alphabet[Int(sextet & 0x3F)]
    }
}
