import FuzzTargets

// Built by scripts/fuzz with -sanitize=fuzzer and -DFUZZING: libFuzzer's main drives this function. In the
// normal build (no libFuzzer), main replays the files and directories named on the command line through it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.importLine(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
    @main
    enum Replay {
        static func main() { FuzzReplay.main(FuzzTargets.importLine) }
    }
#endif
