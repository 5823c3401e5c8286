internal import CMicroHTTPD
import Foundation

/// Starting libmicrohttpd: flags, options, the bound socket address.
extension HTTPServer {
    func launch(listen: ListenAddress, tls: (certificatePEM: String, keyPEM: String)?, options: Options) throws {
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        #if os(Linux)
            flags |= MHD_USE_EPOLL.rawValue
        #else
            flags |= MHD_USE_POLL.rawValue
        #endif
        if listen.family == .ipv6 { flags |= MHD_USE_IPv6.rawValue }
        let me = Unmanaged.passUnretained(self).toOpaque()
        var items: [MHD_OptionItem] = [
            MHD_OptionItem(
                option: .CONNECTION_LIMIT, value: max(1, options.maxConnections) + max(0, options.probeReserve),
                ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: max(1, options.connectionTimeout), ptr_value: nil),
            MHD_OptionItem(
                option: .PER_IP_CONNECTION_LIMIT, value: max(0, options.maxConnectionsPerClient), ptr_value: nil),
            // A function pointer travels in the item's value; its argument in ptr_value.
            MHD_OptionItem(
                option: .NOTIFY_CONNECTION, value: unsafeBitCast(HTTPServer.connectionCallback, to: Int.self),
                ptr_value: me),
        ]
        if options.threads > 1 {
            items.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: options.threads, ptr_value: nil))
        }
        if let tls {
            guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else {
                throw HTTPServerError.tls("this libmicrohttpd was built without TLS")
            }
            // libmicrohttpd keeps these pointers: they live until the daemon stops.
            let strings = (certificate: strdup(tls.certificatePEM)!, key: strdup(tls.keyPEM)!)
            tlsStrings = strings
            flags |= MHD_USE_TLS.rawValue
            items.append(
                MHD_OptionItem(
                    option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(strings.certificate)))
            items.append(
                MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(strings.key)))
        }
        items += Self.headOptions(me, options.limits)
        let started: OpaquePointer? = try Self.withSocketAddress(listen) { socketAddress in
            items.append(MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: socketAddress))
            items.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            errno = 0
            return items.withUnsafeBufferPointer {
                apnsd_mhd_start(flags, HTTPServer.accessCallback, me, HTTPServer.completedCallback, me, $0.baseAddress)
            }
        }
        guard let started else {
            let reason =
                errno != 0
                ? String(cString: strerror(errno))
                : tls != nil
                    ? "libmicrohttpd refused to start (is the certificate and key PEM, and do they match?)"
                    : "libmicrohttpd refused to start"
            throw HTTPServerError.startFailed(listen.description, reason)
        }
        daemon.withLock { $0 = started }
        boundPort = Int(apnsd_mhd_bound_port(started))
    }

    /// Calls `body` with a sockaddr_in / sockaddr_in6 for `address`.
    private static func withSocketAddress<T>(_ address: ListenAddress, _ body: (UnsafeMutableRawPointer) throws -> T)
        throws -> T
    {
        switch address.family {
        case .ipv4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = UInt16(address.port).bigEndian
            _ = inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
            return try withUnsafeMutableBytes(of: &socketAddress) { try body($0.baseAddress!) }
        case .ipv6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = UInt16(address.port).bigEndian
            _ = inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            return try withUnsafeMutableBytes(of: &socketAddress) { try body($0.baseAddress!) }
        }
    }
}
