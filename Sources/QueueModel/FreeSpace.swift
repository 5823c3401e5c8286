/// A store file's free space: pages no longer used by any row, reused by later writes, and given back to the
/// filesystem only in incremental-vacuum mode.
public struct FreeSpace: Sendable, Equatable {
    /// Whether free pages can be given back in steps (`PRAGMA auto_vacuum = INCREMENTAL`).
    public var incremental: Bool
    /// Pages on the free list.
    public var freePages: Int
    /// Bytes per page.
    public var pageSize: Int
    /// Pages in the file.
    public var pageCount: Int

    public init(incremental: Bool, freePages: Int, pageSize: Int, pageCount: Int) {
        self.incremental = incremental
        self.freePages = freePages
        self.pageSize = pageSize
        self.pageCount = pageCount
    }
}
