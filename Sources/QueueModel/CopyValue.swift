/// One cell of a row copied between engines by `apnsd migrate`, in the types both store alike.
public enum CopyValue: Sendable, Hashable {
    case null
    case int(Int64)
    case text(String)
    case bytes([UInt8])
}
