internal import CLibPQ
import Foundation

/// The rows of one statement, in binary format; freed with the object. Readers name the column's expected type:
/// a column of another type is a programming error reported as `StoreError.corruptValue` with its name.
final class PGResult {
    private let handle: OpaquePointer
    /// Rows returned.
    let count: Int
    /// Rows changed by an INSERT, UPDATE or DELETE (its command tag); 0 for any other statement.
    let changes: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        count = Int(PQntuples(handle))
        let command = String(cString: PQcmdStatus(handle))
        let writes =
            command.hasPrefix("INSERT") || command.hasPrefix("UPDATE") || command.hasPrefix("DELETE")
            || command.hasPrefix("MERGE")
        changes = writes ? Int(String(cString: PQcmdTuples(handle))) ?? 0 : 0
    }

    deinit { PQclear(handle) }

    var isEmpty: Bool { count == 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    private func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return UnsafeRawBufferPointer(start: PQgetvalue(handle, Int32(row), Int32(column)), count: length)
    }

    private func typeError(_ column: Int, _ wanted: String) -> StoreErrorBox {
        let name = String(cString: PQfname(handle, Int32(column)))
        return StoreErrorBox("column \(name) has type OID \(PQftype(handle, Int32(column))), read as \(wanted)")
    }

    /// An integer column (int2, int4, int8; bool as 0/1). NULL reads as 0: use `optionalInt64` where NULL means something.
    func int64(_ row: Int, _ column: Int) throws -> Int64 {
        if isNull(row, column) { return 0 }
        let raw = bytes(row, column)
        switch PQftype(handle, Int32(column)) {
        case 20: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
        case 23: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
        case 21: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
        case 16: return raw[0] == 0 ? 0 : 1
        default: throw typeError(column, "an integer")
        }
    }

    func int(_ row: Int, _ column: Int) throws -> Int { Int(try int64(row, column)) }

    func optionalInt64(_ row: Int, _ column: Int) throws -> Int64? {
        isNull(row, column) ? nil : try int64(row, column)
    }

    func bool(_ row: Int, _ column: Int) throws -> Bool { try int64(row, column) != 0 }

    /// A text column (text, varchar, name); NULL reads as "".
    func string(_ row: Int, _ column: Int) throws -> String {
        if isNull(row, column) { return "" }
        switch PQftype(handle, Int32(column)) {
        case 25, 1043, 19, 18, 1042: return String(decoding: bytes(row, column), as: UTF8.self)
        default: throw typeError(column, "text")
        }
    }

    func optionalString(_ row: Int, _ column: Int) throws -> String? {
        isNull(row, column) ? nil : try string(row, column)
    }

    /// A bytea column (or text, as its UTF-8 bytes).
    func data(_ row: Int, _ column: Int) throws -> [UInt8] {
        if isNull(row, column) { return [] }
        switch PQftype(handle, Int32(column)) {
        case 17, 25, 1043: return Array(bytes(row, column))
        default: throw typeError(column, "bytea")
        }
    }

    /// The first column of the first row as an integer; nil when there is no row or it is NULL.
    func scalarInt64() throws -> Int64? {
        count == 0 ? nil : try optionalInt64(0, 0)
    }

    /// Each row mapped by `body`.
    func map<T>(_ body: (Int) throws -> T) rethrows -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for row in 0..<count { out.append(try body(row)) }
        return out
    }
}

/// A value read as the wrong type: turned into `StoreError.corruptValue` by the store.
struct StoreErrorBox: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
