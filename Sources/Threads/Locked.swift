import Foundation

/// A value behind a lock. A pthread mutex (NSLock) rather than the standard library's `Mutex`: the
/// ThreadSanitizer pass sees through pthread locks, while `Mutex` locks inside the uninstrumented runtime, so every
/// value it hands between threads was reported as a race.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock. Inlinable: callers in other modules take it on every request,
    /// and an unspecialized generic call with a closure there costs more than the lock.
    @inlinable
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
