/// How connections reach APNs: directly, or through an HTTP(S) proxy (corporate egress).
public enum Proxy: Hashable, Sendable {
    /// Directly; `https_proxy` and friends in the environment are ignored (a stale variable must not
    /// silently reroute or break every delivery).
    case none
    /// As libcurl's environment variables say (`https_proxy`, `no_proxy`, …): only when asked for.
    case environment
    /// Through this proxy URL (`http://` or `https://`, optionally with credentials: never logged).
    case url(String)
}
