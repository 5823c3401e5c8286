import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether this test process was built with `swift test --sanitize=thread` or `--sanitize=address`: both runtimes
/// export their init function (`__tsan_init`, `__asan_init`), so the check needs no flag from the caller.
/// (Shared by the test targets through the TestSupport module; scripts/test runs the sanitizer passes.)
public enum Sanitizers {
    public static let active: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        let names: [String] = ["__tsan_init", "__asan_init"]
        return names.contains { dlsym(process, $0) != nil }
    }()

    /// Whether this test process runs under ThreadSanitizer.
    public static let thread: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__tsan_init") != nil
    }()
}

extension Trait where Self == ConditionTrait {
    /// For a test whose assertions are about elapsed time, rates or memory: instrumented code runs several times
    /// slower (and its threads get their CPU later), so under a sanitizer such bounds say nothing and the test skips.
    public static var measuresTime: Self {
        .enabled(if: !Sanitizers.active, "measures time or rates; skipped under a sanitizer")
    }
}
