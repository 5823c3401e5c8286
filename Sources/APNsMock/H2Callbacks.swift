internal import CNGHTTP2

// nghttp2 calls these C functions; each hands the event to the H2Connection behind user_data.

private func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection {
    Unmanaged<H2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private func stream(_ session: OpaquePointer?, _ id: Int32) -> StreamState? {
    guard let raw = nghttp2_session_get_stream_user_data(session, id) else { return nil }
    return Unmanaged<StreamState>.fromOpaque(raw).takeUnretainedValue()
}

func h2OnBeginHeaders(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
    else { return 0 }
    let fresh = StreamState()
    // The connection owns the state, so streams still open when it goes away (nghttp2_session_del calls no
    // on_stream_close) are freed with it; nghttp2 holds an unretained pointer, cleared when the stream closes.
    connection(userData).streams[frame.pointee.hd.stream_id] = fresh
    nghttp2_session_set_stream_user_data(
        session, frame.pointee.hd.stream_id, Unmanaged.passUnretained(fresh).toOpaque())
    return 0
}

func h2OnHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        let state = stream(session, frame.pointee.hd.stream_id)
    else { return 0 }
    let owner = connection(userData)
    state.check.header(
        name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength)
    ) { owner.judgeAuthorization($0) }
    return 0
}

func h2OnDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let state = stream(session, streamID) else { return 0 }
    state.check.bodyBytes += length
    // Only the broadcast paths read their bodies; a device push keeps its length alone.
    if state.check.channel != nil, let data {
        state.check.channel?.append(body: UnsafeBufferPointer(start: data, count: length))
    }
    return 0
}

func h2OnFrameReceived(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let type = frame.pointee.hd.type
    let streamID = frame.pointee.hd.stream_id
    if type == UInt8(NGHTTP2_RST_STREAM.rawValue) {
        // A reset of a stream the simulator still holds (request unfinished or answer not yet sent). libcurl resets
        // every stream after its answer; those streams are already closed here and cost nothing.
        if stream(session, streamID) != nil { connection(userData).streamResetEarly() }
        return 0
    }
    guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
    let owner = connection(userData)
    owner.requestActivity()
    guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
        let state = stream(session, streamID)
    else { return 0 }
    owner.requestComplete(streamID: streamID, state: state)
    return 0
}

func h2OnStreamClose(
    _ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    if nghttp2_session_get_stream_user_data(session, streamID) != nil {
        nghttp2_session_set_stream_user_data(session, streamID, nil)
        connection(userData).streamClosed(streamID)
    }
    return 0
}

func h2ReadBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let state = stream(session, streamID), let buffer else {
        flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }
    let count = min(length, state.responseBody.count - state.bodyOffset)
    state.responseBody.withUnsafeBufferPointer { body in
        buffer.update(from: body.baseAddress! + state.bodyOffset, count: count)
    }
    state.bodyOffset += count
    if state.bodyOffset >= state.responseBody.count { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}

/// The callback table, built once.
nonisolated(unsafe) let h2Callbacks: OpaquePointer = {
    var callbacks: OpaquePointer?
    nghttp2_session_callbacks_new(&callbacks)
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2OnBeginHeaders)
    nghttp2_session_callbacks_set_on_header_callback(callbacks, h2OnHeader)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2OnDataChunk)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2OnFrameReceived)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2OnStreamClose)
    return callbacks!
}()

/// Session options, built once.
///
/// nghttp2's own rapid-reset guard (CVE-2023-44487: 1000 resets, then 33/s) counts every RST_STREAM, and libcurl
/// 7.88 sends one after nearly every finished stream: it would cut such a client every ~1000 requests, which APNs
/// does not do. So it is lifted here, and the connection applies the same numbers itself to the resets that cost
/// the server something — those of streams it still holds (`H2Connection.streamResetEarly`).
///
/// Closed streams are not kept (they only serve RFC 7540 priorities, which APNs clients must not send). At most
/// 1000 control-frame answers (PING and SETTINGS ACKs, RST_STREAM) may wait to be sent; a client that provokes more
/// without reading them is flooding, and nghttp2 ends the session.
nonisolated(unsafe) let h2Options: OpaquePointer = {
    var option: OpaquePointer?
    nghttp2_option_new(&option)
    nghttp2_option_set_stream_reset_rate_limit(option, 1 << 40, 1 << 40)
    nghttp2_option_set_no_closed_streams(option, 1)
    nghttp2_option_set_max_outbound_ack(option, 1000)
    return option!
}()
