#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator, tuned for commands that stream big inputs in phases (`device import`).
enum MallocTuning {
    /// Makes every allocation of 1 MiB or more a mapping of its own, unmapped when freed. By default glibc raises
    /// that threshold each time such a block is freed (up to 32 MiB), after which big blocks come from heaps that
    /// threads keep: the sort's runs, freed, then stay resident beside the store's own memory (101 MB against 72 at
    /// 4 million lines). `mallopt` is not in Swift's Glibc module, so it is looked up; without it, nothing changes.
    static func returnLargeBlocks() {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        // M_MMAP_THRESHOLD (malloc.h): fixed, no longer adjusted.
        _ = mallopt(-3, 1 << 20)
    }
}
