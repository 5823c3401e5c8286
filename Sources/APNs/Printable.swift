/// Text shown to people (errors, tables) with control characters escaped, so input cannot rewrite a
/// terminal or forge a log line.
public enum Printable {
    /// Whether `text` has no control characters (C0, DEL, C1).
    public static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control character written as `\n`, `\t`, `\r` or `\u{…}`.
    public static func escaped(_ text: String) -> String {
        guard !isPrintable(text) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
