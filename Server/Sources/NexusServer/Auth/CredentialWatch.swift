import NexusWire
import Synchronization

/// The token behind a held long poll, as it was when the poll came.
final class PollCredential: Sendable {
    let hash: String
    let isAccessToken: Bool
    let viewer: Int64
    /// When it stops working, as its request found it (a session's slid expiry, capped by
    /// `--session-max-age`); nil: never.
    let expiresAt: Timestamp?
    /// When the token was last known good, and CredentialWatch's epoch then.
    fileprivate let confirmed: Mutex<CredentialWatch.Confirmation>

    fileprivate init(hash: String, isAccessToken: Bool, viewer: Int64, expiresAt: Timestamp?, confirmed: CredentialWatch.Confirmation) {
        self.hash = hash
        self.isAccessToken = isAccessToken
        self.viewer = viewer
        self.expiresAt = expiresAt
        self.confirmed = Mutex(confirmed)
    }
}

/// Which tokens hold long polls, so that a logout, a revocation or a bot's deletion ends
/// them at once (AppServices.revoke), here and, by the cluster bus's note, on the other
/// replicas; and what a poll checks before it answers, so that it never hands over an
/// event committed after its token stopped working.
///
/// That check comes after the poll's read: whatever the read found was committed before
/// it. A revocation counts as under way from before its statement until its hashes are
/// marked here, so a check finds either the mark or a revocation under way, and then reads
/// the token again from the database, where the revocation has committed.
final class CredentialWatch: Sendable {
    enum Standing {
        case valid
        case revoked
        /// Read the token again: a revocation is under way, the bus reconnected (its
        /// notes may be lost), a replica has trusted it for `trust`, or its expiry has
        /// come (another request may have slid it).
        case unsure
    }

    /// What `confirm` records once the token was read again.
    struct Confirmation: Sendable {
        let epoch: UInt64
        let at: ContinuousClock.Instant
    }

    private struct State {
        /// The viewers of the polls each token hash holds, with how many.
        var holders: [String: [Int64: Int]] = [:]
        /// Hashes revoked lately, and when: a poll let in just before its token's
        /// revocation that starts waiting after it still finds its mark.
        var revoked: [String: ContinuousClock.Instant] = [:]
        var underWay = 0
        /// Moves when the cluster bus reconnects.
        var epoch: UInt64 = 0
    }

    private let state = Mutex(State())
    /// How long a mark is kept: longer than any poll waits (`syncWaitCapSeconds`).
    private let keep: Duration
    /// How long a replica trusts what it read of a token, as its session cache does
    /// (SessionCache.replicaTTL): a lost note then costs no more than it costs a request.
    /// nil: for ever (one SQLite process sees every revocation).
    private let trust: Duration?

    init(keepMarksFor keep: Duration, trust: Duration? = nil) {
        self.keep = keep
        self.trust = trust
    }

    /// Starts watching a poll's token; `release` it when the poll ends.
    func hold(hash: String, isAccessToken: Bool, viewer: Int64, expiresAt: Timestamp?) -> PollCredential {
        state.withLock { state in
            state.holders[hash, default: [:]][viewer, default: 0] += 1
            return PollCredential(
                hash: hash, isAccessToken: isAccessToken, viewer: viewer, expiresAt: expiresAt,
                confirmed: Confirmation(epoch: state.epoch, at: .now))
        }
    }

    func release(_ credential: PollCredential) {
        state.withLock { state in
            guard var viewers = state.holders[credential.hash] else { return }
            let left = (viewers[credential.viewer] ?? 1) - 1
            viewers[credential.viewer] = left > 0 ? left : nil
            state.holders[credential.hash] = viewers.isEmpty ? nil : viewers
        }
    }

    /// Before a revoking statement runs; `marks` once it has committed (or failed).
    func beginRevoking() {
        state.withLock { $0.underWay += 1 }
    }

    /// Marks `hashes` revoked, ends the revocation begun here (`local`), and returns the
    /// viewers whose polls must look again, to end.
    func marks(_ hashes: [String], local: Bool) -> Set<Int64> {
        let now = ContinuousClock.now
        return state.withLock { state in
            if local { state.underWay -= 1 }
            if state.revoked.count >= 1_000 { state.revoked = state.revoked.filter { now - $0.value < keep } }
            var viewers = Set<Int64>()
            for hash in hashes {
                state.revoked[hash] = now
                if let holders = state.holders[hash] { viewers.formUnion(holders.keys) }
            }
            return viewers
        }
    }

    /// The cluster bus reconnected: every held poll reads its token again.
    func reconnected() {
        state.withLock { $0.epoch &+= 1 }
    }

    /// The poll's token as this replica knows it, and what to `confirm` once it was read again.
    func standing(of credential: PollCredential, now: Timestamp) -> (Standing, Confirmation) {
        let asked = ContinuousClock.now
        let last = credential.confirmed.withLock { $0 }
        return state.withLock { state in
            let confirmation = Confirmation(epoch: state.epoch, at: asked)
            if state.revoked[credential.hash] != nil { return (.revoked, confirmation) }
            let stale = last.epoch != state.epoch || trust.map { asked - last.at > $0 } == true
            if state.underWay > 0 || stale { return (.unsure, confirmation) }
            if let expiresAt = credential.expiresAt, now >= expiresAt { return (.unsure, confirmation) }
            return (.valid, confirmation)
        }
    }

    /// The token was read again after `standing` answered `confirmation`, and still works.
    func confirm(_ credential: PollCredential, _ confirmation: Confirmation) {
        credential.confirmed.withLock { $0 = confirmation }
    }
}
