/// What apnsd says about its own build (`apnsd_build_info`).
enum BuildInfo {
    static let version = "0.1.0-dev"
}
