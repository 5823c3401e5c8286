import APNs
import QueueModel

/// The sending parameters of a campaign, which never change after creation.
package struct SendingParameters {
    package var kind: CampaignKind
    package var content: NotificationContent

    package init(kind: CampaignKind, content: NotificationContent) {
        self.kind = kind
        self.content = content
    }
}
