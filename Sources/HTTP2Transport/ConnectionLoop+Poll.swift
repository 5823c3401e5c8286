internal import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loop's sleeping and waking, and corking its socket.
extension ConnectionLoop {
    /// curl_multi_poll on libcurl's sockets plus our wake pipe, and (Linux) a timerfd armed for the throttle's
    /// next token: a poll timeout is whole milliseconds, which would make a throttled connection oversleep
    /// every token.
    func poll(_ sleep: AdmissionState<Waiting>.Sleep) {
        var fds = (
            curl_waitfd(fd: wakePipe.read, events: Int16(CURL_WAIT_POLLIN), revents: 0),
            curl_waitfd(fd: timer, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        )
        var count: UInt32 = 1
        var timeout = sleep.milliseconds
        #if os(Linux)
            if sleep.throttleWait > 0 && timer >= 0 {
                var spec = itimerspec()
                spec.it_value.tv_sec = Int(sleep.throttleWait / 1_000_000_000)
                spec.it_value.tv_nsec = Int(sleep.throttleWait % 1_000_000_000)
                if timerfd_settime(timer, 0, &spec, nil) == 0 {
                    count = 2
                    timeout += 1  // the timerfd wakes us; the timeout is only the fallback
                }
            }
        #endif
        withUnsafeMutableBytes(of: &fds) { raw in
            let waitfds = raw.baseAddress!.assumingMemoryBound(to: curl_waitfd.self)
            _ = curl_multi_poll(multi, waitfds, count, Int32(timeout), nil)
        }
        if fds.0.revents != 0 { drainWakePipe() }
        if count == 2 && fds.1.revents != 0 {
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, 8)
        }
    }

    /// Wakes the loop out of curl_multi_poll: one byte into our own pipe, which the loop polls with libcurl's
    /// sockets. (Not curl_multi_wakeup: the loop may replace its multi handle while callers wake it.)
    func wakeLoop() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func drainWakePipe() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(wakePipe.read, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Corks the connection's socket around a turn's libcurl calls (proven connections; Linux).
    ///
    /// libcurl 7.88 writes every request as three TLS records in three `send` calls (HEADERS, DATA, and the
    /// RST_STREAM that ends each stream); with TCP_NODELAY each would go through the whole TCP transmit path
    /// and wake the server on its own. Corked, the calls only queue bytes; uncorking at the end of the turn
    /// pushes them out. Sockets stay uncorked between turns, so bytes the kernel could not send at once follow
    /// as usual. A throttled batch leaves within the turn that admitted it, a fraction of a millisecond after
    /// the send times the throttle counted.
    func setCork(_ on: Bool) {
        #if os(Linux)
            guard admission.isCorking else { return }
            var value: Int32 = on ? 1 : 0
            _ = setsockopt(
                admission.proof.socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
