import APNs

extension IntakeError {
    /// A body `JSONReader` refused, as one line: "body is not valid UTF-8" or "invalid JSON: what at byte N".
    public init(json failure: JSONReader.Failure) {
        self.init(failure.isInvalidUTF8 ? "body is not valid UTF-8" : "invalid JSON: \(failure)")
    }
}
