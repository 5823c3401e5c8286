/// What a `Transfer`'s libcurl callbacks report to the loop that owns it (on the loop thread, inside
/// curl_multi_perform). The loop decides; the transfer only reports.
protocol TransferEvents: AnyObject {
    /// libcurl is about to put the transfer's attempt on the wire (CURLOPT_PREREQFUNCTION).
    func transferStartsSending(_ transfer: Transfer)
    /// libcurl opened the connection's socket (CURLOPT_SOCKOPTFUNCTION).
    func socketOpened(_ descriptor: Int32)
    /// libcurl is about to close a socket (CURLOPT_CLOSESOCKETFUNCTION).
    func socketClosing(_ descriptor: Int32)
}
