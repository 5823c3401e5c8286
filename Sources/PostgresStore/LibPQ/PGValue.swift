/// A statement parameter, sent to the server in binary format with an explicit type.
enum PGValue {
    case null
    case int(Int64)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)
    case ints([Int64])
    case texts([String])

    /// The parameter's type OID (0 for NULL: the server infers it).
    var typeOID: UInt32 {
        switch self {
        case .null: return 0
        case .int: return 20
        case .text: return 25
        case .bytes: return 17
        case .bool: return 16
        case .ints: return 1016
        case .texts: return 1009
        }
    }

    /// The binary wire encoding (nil for NULL).
    var encoded: [UInt8]? {
        switch self {
        case .null: return nil
        case .int(let value): return Self.bigEndian(value)
        case .text(let value): return Array(value.utf8)
        case .bytes(let value): return value
        case .bool(let value): return [value ? 1 : 0]
        case .ints(let values): return Self.array(elementOID: 20, values.map { Self.bigEndian($0) })
        case .texts(let values): return Self.array(elementOID: 25, values.map { Array($0.utf8) })
        }
    }

    private static func bigEndian(_ value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    private static func bigEndian(_ value: Int32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// PostgreSQL's binary array: dimensions, a has-null flag, the element type, then (length, bytes) per element.
    private static func array(elementOID: Int32, _ elements: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + $1.count })
        out += bigEndian(Int32(elements.isEmpty ? 0 : 1))
        out += bigEndian(Int32(0))
        out += bigEndian(elementOID)
        if !elements.isEmpty {
            out += bigEndian(Int32(elements.count))
            out += bigEndian(Int32(1))
        }
        for element in elements {
            out += bigEndian(Int32(element.count))
            out += element
        }
        return out
    }
}

/// Values that become a parameter as they are (`query(sql, id, name, nil)`).
protocol PGBindable {
    var pgValue: PGValue { get }
}

extension PGValue: PGBindable { var pgValue: PGValue { self } }
extension Int64: PGBindable { var pgValue: PGValue { .int(self) } }
extension Int: PGBindable { var pgValue: PGValue { .int(Int64(self)) } }
extension Int32: PGBindable { var pgValue: PGValue { .int(Int64(self)) } }
extension String: PGBindable { var pgValue: PGValue { .text(self) } }
extension Bool: PGBindable { var pgValue: PGValue { .bool(self) } }
extension Optional: PGBindable where Wrapped: PGBindable {
    var pgValue: PGValue { self?.pgValue ?? .null }
}
