import NIOConcurrencyHelpers
import NexusWire

/// Whether a write was refused for want of space lately, for /healthz. A full disk has no
/// "fixed" event to wait for: writes simply succeed again once space returns, so the
/// condition is reported for a while after the last refusal instead.
final class StorageCondition: Sendable {
    static let shared = StorageCondition()
    /// How long /healthz reports storage_full after the last write refused for space.
    static let window: Int64 = 60_000

    private let lastFull = NIOLockedValueBox<Int64?>(nil)

    func sawFull(at now: Timestamp = .now()) {
        lastFull.withLockedValue { $0 = now.milliseconds }
    }

    func recentlyFull(at now: Timestamp = .now()) -> Bool {
        lastFull.withLockedValue { $0.map { now.milliseconds - $0 < Self.window } ?? false }
    }

    var recentlyFull: Bool { recentlyFull() }
}
