internal import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libcurl's callbacks for a `Transfer`: C function pointers whose user data is the transfer (or, for the
/// socket callbacks, its owner: the connection outlives the transfer that opened it).
extension Transfer {
    /// CURLOPT_WRITEFUNCTION: collects the response body (bounded).
    static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
        {
            data, size, count, user in
            let length = size * count
            guard let data, let user, length > 0 else { return length }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            let room = Transfer.maximumResponseBody - transfer.responseBody.count
            if room > 0 {
                transfer.responseBody.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length)))
            }
            return length
        }

    /// CURLOPT_PREREQFUNCTION: the request is about to go on the wire (connection up, stream slot free).
    static let prereqCallback:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?,
            UnsafeMutablePointer<CChar>?, Int32, Int32
        ) -> Int32 = {
            user, _, _, _, _ in
            if let user {
                let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
                transfer.owner.transferStartsSending(transfer)
            }
            return Int32(CURL_PREREQFUNC_OK)
        }

    /// CURLOPT_HEADERFUNCTION: picks `apns-id` (a broadcast's answer: `apns-request-id`) out of the response
    /// headers; everything else is ignored.
    static let headerCallback:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, user in
            let length = size * count
            guard let data, let user, length > 8 else { return length }
            let line = UnsafeRawBufferPointer(start: data, count: length)
            guard let nameLength = idHeaderLength(line) else { return length }
            var start = nameLength
            var end = length
            while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            while end > start, line[end - 1] == 0x0A || line[end - 1] == 0x0D || line[end - 1] == 0x20 { end -= 1 }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            transfer.apnsID = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
            return length
        }

    /// The length of `apns-id:` or `apns-request-id:` when the header line starts with either (any case), else nil.
    private static func idHeaderLength(_ line: UnsafeRawBufferPointer) -> Int? {
        for name: StaticString in ["apns-id:", "apns-request-id:"] where line.count > name.utf8CodeUnitCount {
            var matches = true
            for i in 0..<name.utf8CodeUnitCount where line[i] | 0x20 != name.utf8Start[i] {
                matches = false
                break
            }
            if matches { return name.utf8CodeUnitCount }
        }
        return nil
    }

    /// CURLOPT_SOCKOPTFUNCTION: libcurl opened the connection's socket (user data: the owner).
    static let socketOpenedCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, curlsocktype) -> Int32 = {
        user, descriptor, _ in
        if let user {
            (Unmanaged<AnyObject>.fromOpaque(user).takeUnretainedValue() as! any TransferEvents).socketOpened(
                descriptor)
        }
        return Int32(CURL_SOCKOPT_OK)
    }

    /// CURLOPT_CLOSESOCKETFUNCTION: libcurl is done with the socket; closing it is ours to do.
    static let socketClosingCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = {
        user, descriptor in
        if let user {
            (Unmanaged<AnyObject>.fromOpaque(user).takeUnretainedValue() as! any TransferEvents).socketClosing(
                descriptor)
        }
        return close(descriptor)
    }
}
