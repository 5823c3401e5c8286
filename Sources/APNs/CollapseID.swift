/// The `apns-collapse-id` header: notifications with the same id replace each other on the device.
public struct CollapseID: Hashable, Sendable, CustomStringConvertible {
    /// Apple's limit, in UTF-8 bytes.
    public static let maximumBytes = 64

    public let value: String

    /// Validates the 64-byte limit and that it is printable (it becomes a header value: no CR, LF or other
    /// control character); an empty id is refused as meaningless.
    public init(_ value: String) throws(APNsError) {
        let bytes = value.utf8.count
        guard bytes > 0 else { throw .collapseIDEmpty }
        guard bytes <= Self.maximumBytes else { throw .collapseIDTooLong(bytes: bytes) }
        guard Printable.isPrintable(value) else { throw .collapseIDNotPrintable(Printable.escaped(value)) }
        self.value = value
    }

    /// An id read back from where it was stored after validation: not checked again.
    public init(trusted value: String) { self.value = value }

    public var description: String { value }
}
