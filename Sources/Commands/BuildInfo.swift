import Foundation

/// What apnsd says about its own build (`apnsd --version`, `apnsd_build_info`).
enum BuildInfo {
    static let version = "0.1.0-dev"

    /// `release, Swift 6.3, x86_64 Linux, Swift runtime static`: what an operator asks of a binary on a host.
    static var description: String {
        "\(configuration), Swift \(compiler), \(architecture) Linux, Swift runtime \(runtime)"
    }

    static var configuration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    static var compiler: String {
        #if compiler(>=6.4)
            "≥ 6.4"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #elseif compiler(>=6.1)
            "6.1"
        #else
            "6.0"
        #endif
    }

    static var architecture: String {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "aarch64"
        #else
            "unknown-architecture"
        #endif
    }

    /// `static` (linked in: `--static-swift-stdlib`, scripts/install) or `shared` (libswiftCore.so from the
    /// toolchain, a development build): RTLD_NOLOAD finds the library only when this process has it loaded.
    static var runtime: String {
        guard let handle = dlopen("libswiftCore.so", RTLD_LAZY | RTLD_NOLOAD) else { return "static" }
        dlclose(handle)
        return "shared"
    }
}
