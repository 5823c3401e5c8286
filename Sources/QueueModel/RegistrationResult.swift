/// What `ProducerStore.registerDevice` did.
public struct RegistrationResult: Hashable, Sendable {
    /// The device as stored.
    public var device: Device
    /// Whether the (token, topic) was unknown before: a new device rather than a re-registration.
    public var isNew: Bool
    /// The device `DeviceRegistration.replaces` named, as stored after it was deactivated (`Replaced`); nil when
    /// none was named, it was unknown for this topic, or it was already inactive.
    public var replaced: Device?

    public init(device: Device, isNew: Bool, replaced: Device? = nil) {
        self.device = device
        self.isNew = isNew
        self.replaced = replaced
    }
}
