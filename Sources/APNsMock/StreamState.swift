/// One request in progress on an HTTP/2 stream, and the error body it will be answered with.
final class StreamState {
    var check = RequestCheck()
    var isStatsRequest = false
    var responseBody: [UInt8] = []
    var bodyOffset = 0

    init() {}
}
