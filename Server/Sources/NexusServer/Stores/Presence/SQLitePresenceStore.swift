import NexusWire
import Synchronization

/// Leases in memory: SQLite means one nexusd process, so there is nobody to share them
/// with, and a renewal every second per `tail -f` would be a write for the one writer.
/// After a restart every client renews within a poll.
final class SQLitePresenceStore: PresenceStore {
    private struct Key: Hashable {
        var user: Int64
        var client: String
    }

    private struct Entry {
        var lease: PresenceLease
        var ended: Bool
    }

    private let leases = Mutex<[Key: Entry]>([:])

    func renew(_ new: [PresenceLease], grace: Int64) async throws {
        leases.withLock { all in
            for lease in new {
                let key = Key(user: lease.user, client: lease.client)
                if let old = all[key] {
                    if old.ended { continue }
                    all[key]?.lease = PresenceLease.merged(old.lease, lease, grace: grace)
                } else {
                    all[key] = Entry(lease: lease, ended: false)
                }
            }
        }
    }

    func end(user: Int64, client: String, at: Timestamp) async throws {
        leases.withLock {
            let key = Key(user: user, client: client)
            let lastAt = max($0[key]?.lease.at ?? at, at)
            $0[key] = Entry(lease: PresenceLease(user: user, client: client, polling: true, at: lastAt, until: at), ended: true)
        }
    }

    func held() async throws -> [Int64: HeldPresence] {
        leases.withLock { all in
            var out: [Int64: HeldPresence] = [:]
            for entry in all.values {
                let l = entry.lease
                let old = out[l.user]
                out[l.user] = HeldPresence(until: max(old?.until ?? l.until, l.until), lastAt: max(old?.lastAt ?? l.at, l.at))
            }
            return out
        }
    }

    func sweep(before: Timestamp) async throws -> [Int64: Timestamp] {
        leases.withLock { all in
            var folded: [Int64: Timestamp] = [:]
            for (key, entry) in all where entry.lease.until < before {
                folded[key.user] = max(folded[key.user] ?? entry.lease.at, entry.lease.at)
                all[key] = nil
            }
            return folded
        }
    }
}
