import Hummingbird
import HTTPTypes
import ServiceLifecycle
import NexusWire

extension AppServices {
    /// The header a live client (`tail -f`, `convos -f`, `send --each-line`) names itself in.
    static let presenceHeader = HTTPField.Name("Nexus-Presence")!

    /// The live client a request comes from, if it named one; 400 for a malformed name.
    static func presenceClient(_ request: Request) throws -> String? {
        guard let value = request.headers[presenceHeader] else { return nil }
        guard isClientName(value) else {
            throw APIError.badRequest(
                "The Nexus-Presence header must be 1 to 64 letters, digits, '-' or '_' naming this client process.",
                code: "invalid_header")
        }
        return value
    }

    static func isClientName(_ s: some StringProtocol) -> Bool {
        (1...64).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// Records the caller as seen: a live client renews its lease, and so stays online; a
    /// one-off request (a `send` from a script, a `users`) moves only the last-seen time.
    /// In a chat, online says someone has it open now, which one command does not.
    func seen(_ user: User, request: Request, at now: Timestamp) async throws {
        if let client = try Self.presenceClient(request) {
            guard let lease = holds.request(PresenceHolds.Key(user: user.id, client: client), now: now) else { return }
            await write([lease], user: user.id)
            return
        }
        presence.touch(user.id, at: now)
    }

    /// A long poll of a live client starts; `end` its token when it is over.
    func beginPoll(user: Int64, client: String) async -> Int {
        let (token, lease) = holds.begin(PresenceHolds.Key(user: user, client: client), now: clock())
        if let lease { await write([lease], user: user) }
        return token
    }

    /// The client said goodbye (a clean exit): its user goes offline at once unless
    /// another of their clients is live.
    func leave(user: Int64, client: String) async throws {
        let key = PresenceHolds.Key(user: user, client: client)
        holds.forget(key)
        try await stores.presence.end(user: user, client: client, at: clock())
        await refreshPresence()
    }

    /// Writes leases; when one brings its user online, everyone looks again at once.
    private func write(_ leases: [PresenceLease], user: Int64) async {
        let wasHeld = board.state(of: user).map { $0.until > clock() } ?? false
        try? await stores.presence.renew(leases, grace: Presence.graceMs)
        if !wasHeld { await refreshPresence() }
    }

    /// Reads the shared leases again and wakes the contacts of whoever came or went.
    func refreshPresence() async {
        guard let held = try? await stores.presence.held() else { return }
        let changed = board.replace(held, now: clock())
        await notifyContacts(of: changed)
    }

    /// Wakes the long polls of everyone who shares a conversation with `users`.
    func notifyContacts(of users: some Collection<Int64>) async {
        for user in users {
            guard let contacts = try? await stores.conversations.conversations(viewer: user).users.map(\.id) else { continue }
            await events.publish(.wake(users: contacts.filter { $0 != user }, because: .presence))
        }
    }

    /// What the viewer's long poll reports: each contact's state, and a digest of who is
    /// online that changes exactly when someone comes or goes.
    func presenceSnapshot(of contacts: [User]) -> (states: [PresenceState], digest: String) {
        let states = contacts.map(present).sorted { $0.id < $1.id }
            .map { PresenceState(userId: $0.id, online: $0.online == true, lastSeenAt: $0.lastSeenAt) }
        // Over "id:0|1," for each contact: short, and stable across replicas.
        return (states, FNV1a.hex(states.map { "\($0.userId):\($0.online ? 1 : 0)," }.joined()))
    }

    /// Renews this replica's polls, reads everyone's leases, tells contacts who came or
    /// went; now and then moves ended leases into the stored last-seen times.
    func presenceTick(sweep: Bool) async {
        let now = clock()
        try? await stores.presence.renew(holds.due(now: now), grace: Presence.graceMs)
        await refreshPresence()
        guard sweep else { return }
        // A minute after the end, so the stored time can't look like a recent one-off request.
        let before = Timestamp(milliseconds: now.milliseconds - Presence.onlineWindowMs - Presence.graceMs)
        if let folded = try? await stores.presence.sweep(before: before), !folded.isEmpty {
            try? await stores.users.saveLastSeen(folded)
        }
    }
}

/// Keeps presence in step every second (see AppServices.presenceTick).
struct PresenceService: Service {
    let services: AppServices

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var ticks = 0
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                ticks += 1
                await services.presenceTick(sweep: ticks % 30 == 0)
            }
        }
    }
}
