import Foundation

/// Device tokens for tests: 64 hex digits, distinct for each index.
public enum Tokens {
    /// The `index`th token, after `prefix` (hex, at most 4 digits), so that tests can tell their tokens apart.
    public static func hex(_ index: Int, prefix: String = "a11c") -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", index)
    }
}
