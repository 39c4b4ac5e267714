import NexusCore
import Synchronization

/// Failed logins per account and per client address, over a sliding window. An attempt
/// is refused (429) while either has used up its failures; the wait ends when the oldest
/// failure leaves the window. A success clears the account's failures; the address keeps
/// its earlier ones.
///
/// In memory, per process: with several replicas, each one limits on its own.
final class LoginLimiter: Sendable {
    private let perAccount: Int
    private let perAddress: Int
    private let windowMs: Int64
    /// Failure times (ms) by key: "a:" + email or "i:" + address, oldest first.
    private let failures = Mutex<[String: [Int64]]>([:])
    /// Keys kept before stale ones are swept, so a flood of new emails can't grow it forever.
    private let sweepAt = 50_000

    init(_ limits: ServerLimits) {
        perAccount = limits.loginFailuresPerAccount
        perAddress = limits.loginFailuresPerAddress
        windowMs = limits.loginWindowSeconds * 1000
    }

    /// nil when the attempt may go ahead, else the seconds to wait. An attempt that goes
    /// ahead counts as a failure at once, before the password is checked: counted only
    /// afterwards, a burst of concurrent guesses would all pass the check together.
    func admit(account: String, address: String?, now: Timestamp) -> Int64? {
        let now = now.milliseconds
        return failures.withLock { table in
            if table.count >= sweepAt {
                table = table.filter { $0.value.last ?? 0 > now - windowMs }
            }
            var waitMs: Int64 = 0
            let keys = keys(account: account, address: address)
            for (key, limit) in keys {
                let recent = (table[key] ?? []).filter { $0 > now - windowMs }
                table[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit { waitMs = max(waitMs, recent[recent.count - limit] + windowMs - now) }
            }
            if waitMs > 0 { return (waitMs + 999) / 1000 }
            for (key, _) in keys { table[key, default: []].append(now) }
            return nil
        }
    }

    /// The attempt admitted at `now` was right: it is no failure, and the account's
    /// earlier failures are forgiven.
    func succeeded(account: String, address: String?, admittedAt now: Timestamp) {
        failures.withLock { table in
            table["a:" + account] = nil
            if let address, let index = table["i:" + address]?.lastIndex(of: now.milliseconds) {
                table["i:" + address]?.remove(at: index)
            }
        }
    }

    private func keys(account: String, address: String?) -> [(String, Int)] {
        [("a:" + account, perAccount)] + (address.map { [("i:" + $0, perAddress)] } ?? [])
    }
}
