import Foundation
import NexusWire
import Synchronization

/// Webhooks' tunables. The defaults are the documented behaviour (docs/webhooks.md); the
/// NEXUSD_HOOK_* variables exist so tests can reach a limit or a give-up in seconds.
struct HookSettings: Sendable {
    /// Incoming posts: a bucket of `burst` posts per hook, refilled at `perSecond`.
    var burst = 20.0
    var perSecond = 1.0
    /// An outgoing hook whose every delivery has failed this long is disabled.
    var giveUpSeconds: Int64 = 86_400
    /// Retries wait 1 s, 2 s, 4 s … up to this, until the give-up.
    var maxBackoffSeconds: Int64 = 3_600
    /// The whole of one attempt: connect, send, answer.
    var timeoutSeconds: Int64 = 10
    /// How long a claimed delivery is this replica's (PostgreSQL); past it another retries.
    var leaseSeconds: Int64 = 30

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> HookSettings {
        var s = HookSettings()
        func number(_ name: String) -> Double? { environment["NEXUSD_HOOK_" + name].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } }
        s.burst = number("BURST") ?? s.burst
        s.perSecond = number("PER_SECOND") ?? s.perSecond
        s.giveUpSeconds = number("GIVE_UP_SECONDS").map { Int64($0) } ?? s.giveUpSeconds
        s.maxBackoffSeconds = number("MAX_BACKOFF_SECONDS").map { Int64($0) } ?? s.maxBackoffSeconds
        s.timeoutSeconds = number("TIMEOUT_SECONDS").map { Int64($0) } ?? s.timeoutSeconds
        s.leaseSeconds = number("LEASE_SECONDS").map { Int64($0) } ?? s.leaseSeconds
        return s
    }

    /// The wait before attempt `attempt + 1` of a delivery that failed `attempt` times.
    func backoffMs(afterAttempt attempt: Int64) -> Int64 {
        let seconds = min(Int64(1) << min(max(attempt - 1, 0), 20), maxBackoffSeconds)
        return seconds * 1000
    }
}

/// What webhooks keep in memory: the incoming rate limits, which conversations have an
/// outgoing hook, and the wake-up of the delivery worker.
final class HookRuntime: Sendable {
    let settings: HookSettings
    let wake = WakeSignal()
    /// Fired once the schema is in place: the worker waits for it before its first claim.
    let migrated = WakeSignal()
    private let outgoing = Mutex<Set<Int64>>([])
    private let buckets = Mutex<[Int64: (tokens: Double, at: Int64)]>([:])

    init(settings: HookSettings = .fromEnvironment()) {
        self.settings = settings
    }

    /// Messages were committed in these conversations: wake the worker if any has an
    /// outgoing hook. A set lookup, so a send with no hooks about pays nothing more.
    func committed<C: Sequence<Int64>>(in conversations: C) {
        let any = outgoing.withLock { set in !set.isEmpty && conversations.contains(where: set.contains) }
        if any { wake.fire() }
    }

    func setOutgoing(_ conversations: Set<Int64>) {
        outgoing.withLock { $0 = conversations }
    }

    func addOutgoing(_ conversation: Int64) {
        outgoing.withLock { _ = $0.insert(conversation) }
    }

    var hasOutgoing: Bool { outgoing.withLock { !$0.isEmpty } }

    /// Takes one post from the hook's bucket; nil when allowed, else the seconds until it would be.
    func throttle(hook: Int64, now: Timestamp) -> Int64? {
        let (burst, rate) = (settings.burst, settings.perSecond)
        return buckets.withLock { buckets in
            let ms = now.milliseconds
            var bucket = buckets[hook] ?? (burst, ms)
            bucket.tokens = min(burst, bucket.tokens + Double(max(0, ms - bucket.at)) / 1000 * rate)
            bucket.at = ms
            defer { buckets[hook] = bucket }
            guard bucket.tokens >= 1 else { return Int64(((1 - bucket.tokens) / rate).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Wakes one waiter; a fire with no one waiting is kept for the next wait.
final class WakeSignal: Sendable {
    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func fire() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next fire, after `timeout`, or at cancellation.
    func wait(timeout: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self?.fire() }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            self.fire()
        }
    }
}
