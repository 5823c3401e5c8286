import APNs
import QueueModel

/// `apnsd device list`'s plain columns: TOKEN TOPIC ENV KIND ACTIVITY USER ACTIVE REASON REGISTERED, each as wide as its
/// longest value in the rows it was fitted to (at least its heading), so a reason never pushes REGISTERED out
/// of line.
struct DeviceTable {
    private var widths: [Int]
    static let headings = ["TOKEN", "TOPIC", "ENV", "KIND", "ACTIVITY", "USER", "ACTIVE", "REASON", "REGISTERED"]

    init(fitting devices: [Device]) {
        widths = Self.headings.map(\.count)
        for device in devices {
            for (index, cell) in Self.cells(device).enumerated() { widths[index] = max(widths[index], cell.count) }
        }
    }

    var header: String { Self.join(Self.headings, widths) }

    func line(_ device: Device) -> String { Self.join(Self.cells(device), widths) }

    private static func cells(_ device: Device) -> [String] {
        [
            device.token.hex, Printable.escaped(device.topic), device.environment.rawValue, device.kind.rawValue,
            device.activityType.map(Printable.escaped) ?? "-", device.user.map(Printable.escaped) ?? "-",
            device.isActive ? "yes" : "no", device.reason.map { Printable.escaped($0.rawValue) } ?? "-",
            Output.timestamp(device.registeredAt),
        ]
    }

    /// Cells padded to their widths, two spaces apart; the last one is not padded.
    private static func join(_ cells: [String], _ widths: [Int]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            if index == cells.count - 1 {
                line += cell
                break
            }
            line += cell + String(repeating: " ", count: max(widths[index] - cell.count, 0) + 2)
        }
        return line
    }
}
