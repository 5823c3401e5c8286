internal import CSQLite

/// A Swift value that can be bound to a statement parameter.
protocol SQLBindable {
    /// Binds the value to parameter `index` (1-based) and returns SQLite's result code.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

/// An explicit SQL NULL, for parameters whose type does not matter.
struct SQLNull: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_null(statement, index) }
}

extension Int64: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

extension Int: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Bool: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
}

extension String: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var copy = self
        return copy.withUTF8 { utf8 in
            // A NULL pointer would bind SQL NULL, so an empty string gets a real (empty) pointer.
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                return "".withCString { apnsd_sqlite3_bind_text_transient(statement, index, $0, 0) }
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                apnsd_sqlite3_bind_text_transient(statement, index, $0, Int32(utf8.count))
            }
        }
    }
}

extension Array: SQLBindable where Element == UInt8 {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // sqlite3_bind_blob with a NULL pointer binds NULL; an empty blob is a zero-length zeroblob.
        guard !isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
        return withUnsafeBytes { apnsd_sqlite3_bind_blob_transient(statement, index, $0.baseAddress, Int32($0.count)) }
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): return value.bind(to: statement, at: index)
        case .none: return sqlite3_bind_null(statement, index)
        }
    }
}
