import NexusWire

/// What an outgoing hook is sent (docs/webhooks.md): each kind a hook can choose with
/// `--events`, and the event names its deliveries carry.
enum HookEventKind: String, CaseIterable, Sendable {
    case message, edit, delete, reaction, membership

    /// A hook made without a choice gets every kind; its `events` column is then NULL, so
    /// a kind added later reaches it too.
    static func parse(_ names: [String]?) throws -> String? {
        guard let names else { return nil }
        let known = Set(allCases.map(\.rawValue))
        let unknown = names.filter { !known.contains($0) }
        guard unknown.isEmpty, !names.isEmpty else {
            throw APIError.badRequest(
                "A hook's events are one or more of \(allCases.map(\.rawValue).joined(separator: ", "))"
                    + (unknown.isEmpty ? "; none were given." : "; '\(unknown[0])' is none of them."),
                code: "invalid_events")
        }
        let chosen = Set(names)
        return chosen.count == allCases.count ? nil : allCases.filter { chosen.contains($0.rawValue) }.map(\.rawValue).joined(separator: ",")
    }

    /// The kinds a hook row's `events` column holds.
    static func kinds(_ column: String?) -> [String] {
        column.map { $0.split(separator: ",").map(String.init) } ?? allCases.map(\.rawValue)
    }

    /// SQL true when hook row `h` takes this kind (the column is a comma list without spaces).
    var chosenBy: String { "(h.events IS NULL OR ',' || h.events || ',' LIKE '%,\(rawValue),%')" }

    /// The delivery's `event` for a message change.
    static func name(of change: MessageChange.Kind) -> (kind: HookEventKind, event: String) {
        switch change {
        case .edit: (.edit, "message.edited")
        case .delete: (.delete, "message.deleted")
        case .react: (.reaction, "reaction.added")
        case .unreact: (.reaction, "reaction.removed")
        }
    }

    /// Queues a changed message's deliveries in the change's own transaction, as the
    /// messages trigger does for a new one. Only a change that is news calls it, so a
    /// repeated reaction is not delivered twice. Every value is an integer or a constant
    /// without quotes, so it is safe inline on both backends.
    static func enqueueSQL(change: MessageChange.Kind, changeId: Int64, messageId: Int64, conversationId: Int64, at: Int64) -> String {
        let (kind, event) = name(of: change)
        return """
            INSERT INTO hook_deliveries (hook_id, event, message_id, change_id, created_at)
            SELECT h.id, '\(event)', \(messageId), \(changeId), \(at) FROM hooks h
            WHERE h.conversation_id = \(conversationId) AND h.kind = 'outgoing' AND h.revoked_at IS NULL AND h.disabled_at IS NULL
                AND \(kind.chosenBy)
            ORDER BY h.id
            """
    }
}

extension HookSchema {
    /// Hooks choose their events, and changes are delivered: `hooks.events` (NULL: all),
    /// and a delivery names the change it is about. The messages trigger tells a
    /// membership line (a message with `membership`) from a message.
    static let eventsSQLite: [String] = [
        "ALTER TABLE hooks ADD COLUMN events TEXT",
        "ALTER TABLE hook_deliveries ADD COLUMN change_id INTEGER",
        "DROP TRIGGER hook_enqueue",
        """
        CREATE TRIGGER hook_enqueue AFTER INSERT ON messages BEGIN
            INSERT INTO hook_deliveries (hook_id, event, message_id, created_at)
            SELECT h.id, CASE WHEN NEW.membership IS NULL THEN 'message.created' ELSE 'membership.changed' END, NEW.id, NEW.sent_at
            FROM hooks h
            WHERE h.conversation_id = NEW.conversation_id AND h.kind = 'outgoing' AND h.revoked_at IS NULL AND h.disabled_at IS NULL
                AND CASE WHEN NEW.membership IS NULL THEN \(HookEventKind.message.chosenBy) ELSE \(HookEventKind.membership.chosenBy) END;
        END
        """,
    ]

    static let eventsPostgres: [String] = [
        "ALTER TABLE hooks ADD COLUMN events TEXT",
        "ALTER TABLE hook_deliveries ADD COLUMN change_id BIGINT",
        """
        CREATE OR REPLACE FUNCTION hook_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO hook_deliveries (hook_id, event, message_id, created_at)
            SELECT h.id, CASE WHEN n.membership IS NULL THEN 'message.created' ELSE 'membership.changed' END, n.id, n.sent_at
            FROM new_messages n
            JOIN hooks h ON h.conversation_id = n.conversation_id
            WHERE h.kind = 'outgoing' AND h.revoked_at IS NULL AND h.disabled_at IS NULL
                AND CASE WHEN n.membership IS NULL THEN \(HookEventKind.message.chosenBy) ELSE \(HookEventKind.membership.chosenBy) END
            ORDER BY n.id, h.id;
            RETURN NULL;
        END
        $$
        """,
    ]
}
