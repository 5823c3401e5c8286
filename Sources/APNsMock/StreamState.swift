/// One request in progress on an HTTP/2 stream, and the error body it will be answered with.
/// Owned by its connection (`H2Connection.streams`); nghttp2 holds an unretained pointer as stream user data.
final class StreamState {
    var check = RequestCheck()
    /// A `GET /_mock/stats` answer: its body is the whole statistics, so a connection gets one at a time.
    var isStatsRequest = false
    var responseBody: [UInt8] = []
    var bodyOffset = 0

    init() {}
}
