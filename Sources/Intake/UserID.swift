import APNs

/// The producer's user ids (`--user`, the second field of an import line): printable UTF-8, 1–256 bytes.
/// Printable, because they are shown in tables and logs; valid UTF-8, because a replacement character would make
/// distinct ids collide.
public enum UserID {
    public static let maximumBytes = 256

    /// Checks a user id given as text.
    public static func validate(_ id: String) throws(IntakeError) {
        let count = id.utf8.count
        guard count > 0 else { throw IntakeError("a user id must not be empty") }
        guard count <= maximumBytes else { throw IntakeError("user id of \(count) bytes; at most \(maximumBytes)") }
        guard Printable.isPrintable(id) else {
            throw IntakeError("user id '\(Printable.escaped(String(id.prefix(80))))' contains a control character")
        }
    }

    /// Decodes and checks a user id given as bytes (an import line): invalid UTF-8 is refused, not replaced.
    public static func decode(_ bytes: some Collection<UInt8>) throws(IntakeError) -> String {
        guard let id = String(validating: bytes, as: UTF8.self) else { throw IntakeError("user id is not valid UTF-8") }
        try validate(id)
        return id
    }
}
