/// `apns.proxy`: how the worker reaches APNs.
public enum ProxySetting: Hashable, Sendable {
    /// Directly; proxy variables in the environment are ignored.
    case none
    /// As the environment's `https_proxy`/`no_proxy` say.
    case environment
    /// Through this `http://` or `https://` proxy (credentials allowed, never logged).
    case url(String)
}
