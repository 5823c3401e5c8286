/// The `apns-topic` rules for a bundle id: Apple allows letters, digits, hyphens and periods.
public enum Topic {
    /// Longer bundle ids are refused (Apple's own are far shorter).
    public static let maximumBytes = 255

    /// Checks that `bundleID` is a bundle id: 1–255 characters of `A–Z a–z 0–9 - .`, no empty label.
    public static func validate(_ bundleID: String) throws(APNsError) {
        let bytes = Array(bundleID.utf8)
        let shown = "'\(Printable.escaped(String(bundleID.prefix(80))))'"
        guard !bytes.isEmpty else { throw .invalidTopic("the bundle id is empty") }
        guard bytes.count <= maximumBytes else { throw .invalidTopic("\(shown)… is \(bytes.count) bytes; at most \(maximumBytes)") }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default:
                throw .invalidTopic("\(shown) is not a bundle id (only letters, digits, '-' and '.')")
            }
        }
        guard bytes.first != UInt8(ascii: "."), bytes.last != UInt8(ascii: "."), !bundleID.contains("..") else {
            throw .invalidTopic("\(shown) is not a bundle id (empty part between periods)")
        }
    }
}
