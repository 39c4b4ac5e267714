import NexusWire
import Synchronization

/// Failed logins over a sliding window, counted three ways, so that guessing is slow but a
/// stranger who knows an email can't lock its owner out:
/// - per account and address: `loginFailuresPerAccountAddress` (5) locks that address out
///   of that account only;
/// - per address, across accounts: `loginFailuresPerAddress` (20);
/// - per account, across addresses: `loginFailuresPerAccount` (50), which only a spread
///   attack can reach, and which does not apply to an address that has logged in to the
///   account before (within `loginTrustSeconds`).
/// An attempt is refused (429) while any count that applies is used up; the wait ends when
/// the oldest failure leaves the window. A success clears its account-and-address failures.
///
/// In memory, per process: with several replicas, each one limits on its own, and a
/// restart forgets the counts and the trusted addresses.
final class LoginLimiter: Sendable {
    private let perPair: Int
    private let perAccount: Int
    private let perAddress: Int
    private let windowMs: Int64
    private let trustMs: Int64
    /// Failure times (ms) by key, oldest first: "a:" + email, "i:" + address, "p:" + both.
    private let failures = Mutex<[String: [Int64]]>([:])
    /// "p:" keys of logins that succeeded, with when the trust ends.
    private let trusted = Mutex<[String: Int64]>([:])
    /// Keys kept before stale ones are swept, so a flood of new emails can't grow it forever.
    private let sweepAt = 50_000

    init(_ limits: ServerLimits) {
        perPair = limits.loginFailuresPerAccountAddress
        perAccount = limits.loginFailuresPerAccount
        perAddress = limits.loginFailuresPerAddress
        windowMs = limits.loginWindowSeconds * 1000
        trustMs = limits.loginTrustSeconds * 1000
    }

    /// nil when the attempt may go ahead, else the seconds to wait. An attempt that goes
    /// ahead counts as a failure at once, before the password is checked: counted only
    /// afterwards, a burst of concurrent guesses would all pass the check together.
    func admit(account: String, address: String?, now: Timestamp) -> Int64? {
        let now = now.milliseconds
        let isTrusted = trusted.withLock { ($0[Self.pair(account, address)] ?? 0) > now }
        return failures.withLock { table in
            if table.count >= sweepAt {
                table = table.filter { $0.value.last ?? 0 > now - windowMs }
            }
            var waitMs: Int64 = 0
            let keys = keys(account: account, address: address, trusted: isTrusted)
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

    /// The attempt admitted at `now` was right: it is no failure, its account-and-address
    /// failures are forgiven, and that address is trusted for the account from now on.
    func succeeded(account: String, address: String?, admittedAt now: Timestamp) {
        let pair = Self.pair(account, address)
        trusted.withLock { table in
            if table.count >= sweepAt { table = table.filter { $0.value > now.milliseconds } }
            table[pair] = now.milliseconds + trustMs
        }
        failures.withLock { table in
            table[pair] = nil
            for key in ["a:" + account] + (address.map { ["i:" + $0] } ?? []) {
                if let index = table[key]?.lastIndex(of: now.milliseconds) { table[key]?.remove(at: index) }
            }
        }
    }

    private static func pair(_ account: String, _ address: String?) -> String {
        "p:" + (address ?? "?") + " " + account
    }

    private func keys(account: String, address: String?, trusted: Bool) -> [(String, Int)] {
        var keys = [(Self.pair(account, address), perPair)]
        if let address { keys.append(("i:" + address, perAddress)) }
        if !trusted { keys.append(("a:" + account, perAccount)) }
        return keys
    }
}
