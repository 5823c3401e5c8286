// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "apnsd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "apnsd", targets: ["apnsd"]),
        .executable(name: "apns-mock", targets: ["apns-mock"]),
    ],
    targets: [
        // System C libraries, each wrapped once: a module map plus a header of tiny static inline shims.
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),

        .target(name: "APNs"),
        // Compiles the files of a target's Embedded/ folder in as text (the OpenAPI document), at build time.
        .executableTarget(name: "EmbedText"),
        .plugin(
            name: "EmbedTextPlugin", capability: .buildTool(), dependencies: ["EmbedText"],
            path: "Sources/EmbedTextPlugin"),
        .target(name: "Threads"),
        .target(name: "ProviderAuth", dependencies: ["APNs", "COpenSSL", "Threads"]),
        .target(name: "HTTP2Transport", dependencies: ["APNs", "Threads", "CCurl"]),
        .target(name: "HTTPServer", dependencies: ["Threads", "CMicroHTTPD"]),
        .target(name: "QueueModel", dependencies: ["APNs", "Threads"]),
        .target(name: "QueueRules", dependencies: ["APNs", "QueueModel"]),
        .target(
            name: "Store", dependencies: ["APNs", "QueueModel", "QueueRules", "Threads", "CSQLite"],
            exclude: ["SCHEMA.md"]),
        .target(name: "PostgresStore", dependencies: ["APNs", "QueueModel", "QueueRules", "Threads", "CLibPQ"]),
        .target(name: "Logging", dependencies: ["Threads"]),
        .target(name: "ArgumentParsing"),
        .target(name: "Metrics", dependencies: ["APNs", "HTTP2Transport", "QueueModel", "Threads"]),
        .target(name: "Intake", dependencies: ["APNs", "QueueModel", "Logging"]),
        .target(
            name: "API",
            dependencies: [
                "APNs", "Channels", "Events", "HTTPServer", "Intake", "Logging", "Metrics", "ProviderAuth",
                "QueueModel", "Threads",
            ],
            exclude: ["Embedded"], plugins: ["EmbedTextPlugin"]),
        .target(
            name: "Events",
            dependencies: [
                "APNs", "QueueModel", "QueueRules", "Threads", "Logging", "ProviderAuth", "HTTP2Transport", "Intake",
            ]),
        .target(name: "Channels", dependencies: ["APNs", "QueueModel", "ProviderAuth", "HTTP2Transport"]),
        .target(
            name: "Dispatcher",
            dependencies: ["APNs", "QueueModel", "QueueRules", "ProviderAuth", "HTTP2Transport", "Logging", "Threads"]),
        .target(name: "APNsMock", dependencies: ["APNs", "Threads", "ProviderAuth", "COpenSSL", "CNGHTTP2"]),
        .executableTarget(name: "apns-mock", dependencies: ["APNsMock", "ProviderAuth", "ArgumentParsing"]),
        .target(
            name: "Commands",
            dependencies: [
                "API", "Channels", "Events", "Threads", "APNs", "ProviderAuth", "HTTP2Transport", "HTTPServer",
                "Metrics", "QueueModel", "Store", "PostgresStore", "Dispatcher", "Logging", "Intake", "ArgumentParsing",
            ]),
        .executableTarget(name: "apnsd", dependencies: ["Commands"]),

        .executableTarget(
            name: "apnsd-bench",
            dependencies: [
                "APNs", "ProviderAuth", "HTTP2Transport", "Store", "Dispatcher", "Logging", "APNsMock",
                "ArgumentParsing", "Metrics", "QueueModel",
                "API",
            ],
            path: "Benchmarks/apnsd-bench"),

        // Fuzz targets (scripts/fuzz; FUZZING.md). Each is its own executable so that only it links libFuzzer's
        // main when scripts/fuzz builds it with --sanitize=fuzzer -DFUZZING; in the normal build each is a small
        // replay runner (FuzzPayload FILE|DIR...) and FuzzCorpusTests runs the seed corpus through the same code.
        .target(
            name: "FuzzTargets", dependencies: ["APNs", "Intake", "ProviderAuth", "APNsMock"],
            path: "Tests/Fuzz/FuzzTargets"),
        .executableTarget(name: "FuzzPayload", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzPayload"),
        .executableTarget(name: "FuzzImportLine", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzImportLine"),
        .executableTarget(name: "FuzzConfig", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzConfig"),
        .executableTarget(name: "FuzzKey", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzKey"),
        .executableTarget(name: "FuzzMockRequest", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzMockRequest"),

        // What the test targets share (not a product; only tests depend on it).
        .target(name: "TestSupport", dependencies: ["Threads"], path: "Tests/TestSupport"),
        // The command line's harness (in process, or the built binary) and the fleet of workers against apns-mock.
        .target(
            name: "CLITestSupport",
            dependencies: ["TestSupport", "Commands", "Logging", "Threads", "APNsMock", "ProviderAuth"],
            path: "Tests/CLITestSupport"),
        .testTarget(name: "APNsTests", dependencies: ["APNs"]),
        .testTarget(name: "IntakeTests", dependencies: ["Intake", "APNs", "QueueModel"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "MetricsTests", dependencies: ["TestSupport", "Metrics", "APNs", "QueueModel"]),
        .testTarget(name: "ProviderAuthTests", dependencies: ["TestSupport", "ProviderAuth"]),
        .testTarget(
            name: "APNsMockTests", dependencies: ["TestSupport", "APNsMock", "ProviderAuth", "APNs", "COpenSSL"]),
        .testTarget(
            name: "StoreTests",
            dependencies: ["TestSupport", "Store", "PostgresStore", "QueueModel", "QueueRules", "APNs", "Threads"]),
        .testTarget(name: "QueueRulesTests", dependencies: ["QueueRules", "QueueModel", "APNs"]),
        .testTarget(
            name: "EventsTests",
            dependencies: [
                "TestSupport", "Events", "Store", "QueueModel", "HTTPServer", "HTTP2Transport", "ProviderAuth", "APNs",
                "Intake", "Threads", "Logging",
            ]),
        .testTarget(
            name: "DispatcherTests",
            dependencies: [
                "TestSupport", "Dispatcher", "QueueModel", "Store", "HTTP2Transport", "APNsMock", "ProviderAuth",
                "APNs", "Logging", "Metrics", "Threads",
            ]),
        // Runs the built apnsd binary as a user would (scripts/test builds every product first).
        .testTarget(
            name: "apnsdCLITests",
            dependencies: [
                "TestSupport", "CLITestSupport", "Threads", "APNsMock", "ProviderAuth", "QueueModel", "Store", "APNs",
                "Intake", "API",
            ]),
        // apnsd's command line run in process (Commands), against apns-mock and real databases.
        .testTarget(
            name: "CommandsTests",
            dependencies: [
                "TestSupport", "CLITestSupport", "APNsMock", "ProviderAuth", "QueueModel", "Store", "APNs", "Intake",
                "API", "Logging", "PostgresStore", "Dispatcher", "Threads", "HTTPServer",
            ]),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"]),
        // The README's module table, the documents named in comments and deploy/'s units, held to the tree.
        .testTarget(name: "DocumentationTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "APITests",
            dependencies: [
                "TestSupport", "API", "APNs", "APNsMock", "Dispatcher", "Events", "HTTP2Transport", "HTTPServer",
                "Logging", "Metrics", "ProviderAuth", "QueueModel", "Store", "Threads",
            ]),
        .testTarget(name: "HTTPServerTests", dependencies: ["TestSupport", "HTTPServer"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "HTTP2TransportTests",
            dependencies: ["TestSupport", "HTTP2Transport", "APNsMock", "ProviderAuth", "APNs", "Threads"]),
    ]
)

// scripts/test's sanitizer passes build only the test targets they run. APNSD_TEST_TARGETS is a comma-separated list of
// test target names: the named ones are kept (all of them when none is named), and a name after "-" is left out,
// with whatever only it depends on. Unset: every test target.
if let list = Context.environment["APNSD_TEST_TARGETS"] {
    let names = list.split(separator: ",").map(String.init)
    let left = Set(names.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
    let kept = Set(names.filter { !$0.hasPrefix("-") })
    package.targets.removeAll {
        $0.type == .test && (left.contains($0.name) || (!kept.isEmpty && !kept.contains($0.name)))
    }
}

// Debug builds (the tests' and the sanitizer passes') carry line tables as their only debug information: what a
// crash's or a sanitizer report's stack needs, for about a tenth less compiling. They also skip the compiler's check
// of its own LLVM IR (a self-test of the compiler, not of our code): 5-10% less compiling of the test modules, whose
// macro-expanded tests are most of the IR. Release builds are untouched.
for target in package.targets where target.type != .system && target.type != .plugin {
    let debugFlags = SwiftSetting.unsafeFlags(
        ["-gline-tables-only", "-Xfrontend", "-disable-llvm-verify"], .when(configuration: .debug))
    target.swiftSettings = (target.swiftSettings ?? []) + [debugFlags]
}
