/// The `apns-topic` rules for a bundle id: Apple allows letters, digits, hyphens and periods.
public enum Topic {
    /// Longer bundle ids are refused (Apple's own are far shorter).
    public static let maximumBytes = 255

    /// Checks that `bundleID` is a bundle id: 1–255 characters of `A–Z a–z 0–9 - .`, no empty label.
    public static func validate(_ bundleID: String) throws(APNsError) {
        // Runs once per notification of a batch: bytes only, and the message built only on failure.
        var shown: String { "'\(Printable.escaped(String(bundleID.prefix(80))))'" }
        let count = bundleID.utf8.count
        guard count > 0 else { throw .invalidTopic("the bundle id is empty") }
        guard count <= maximumBytes else { throw .invalidTopic("\(shown)… is \(count) bytes; at most \(maximumBytes)") }
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in bundleID.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"):
                break
            case UInt8(ascii: "."):
                guard previous != UInt8(ascii: ".") else {
                    throw .invalidTopic("\(shown) is not a bundle id (empty part between periods)")
                }
            default:
                throw .invalidTopic("\(shown) is not a bundle id (only letters, digits, '-' and '.')")
            }
            previous = byte
        }
        guard previous != UInt8(ascii: ".") else {
            throw .invalidTopic("\(shown) is not a bundle id (empty part between periods)")
        }
    }
}
