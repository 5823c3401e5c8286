import APNs

/// The reasons APNs gives only on the broadcast paths (docs/APNS.md, "Reasons of the channel and broadcast paths").
/// Kept here, apart from `Reason`'s own list, so the simulator's names can never clash with the ones the APNs module
/// gains for apnsd's broadcast support.
enum ChannelReason {
    static let featureNotEnabled = Reason(rawValue: "FeatureNotEnabled")
    static let missingChannelID = Reason(rawValue: "MissingChannelId")
    static let badChannelID = Reason(rawValue: "BadChannelId")
    static let channelNotRegistered = Reason(rawValue: "ChannelNotRegistered")
    static let badRequestParams = Reason(rawValue: "BadRequestParams")
    static let badRequestPayload = Reason(rawValue: "BadRequestPayload")
    static let missingPushType = Reason(rawValue: "MissingPushType")
    static let cannotCreateChannelConfig = Reason(rawValue: "CannotCreateChannelConfig")
}
