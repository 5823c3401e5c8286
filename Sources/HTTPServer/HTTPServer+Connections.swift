internal import CMicroHTTPD
import Threads

/// libmicrohttpd's connection notifications feed the connection watch: a connection accepted (its first head is
/// timed from now) and a connection about to be closed (called before its socket is closed).
extension HTTPServer {
    static let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            server.watch.opened(
                key(connection), socket: apnsd_mhd_connection_fd(connection), now: MonotonicClock.nanoseconds())
        case .CONNECTION_NOTIFY_CLOSED:
            server.watch.closed(key(connection))
        @unknown default:
            break
        }
    }

    /// Connections open now (the probe reserve's included).
    public var openConnections: Int { watch.count }

    /// Body bytes received and held by requests not completed yet.
    public var bodyBytesInFlight: Int { bodyBytes.withLock { $0 } }
}
