#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One state change of an outgoing message. The outbox file is the log of these;
/// a message's state is the fold of its records.
public struct OutboxRecord: Codable, Sendable, Equatable {
    public enum Op: String, Codable, Sendable {
        case queued, sent, failed
    }

    public var op: Op
    public var localId: String
    public var at: Timestamp
    public var conversationId: Int64?
    /// The other person's email, for a message queued before its direct conversation was known.
    public var to: String?
    public var text: String?
    public var messageId: Int64?
    public var seq: Int64?
    public var error: String?

    public init(
        op: Op, localId: String, at: Timestamp, conversationId: Int64? = nil, to: String? = nil, text: String? = nil,
        messageId: Int64? = nil, seq: Int64? = nil, error: String? = nil
    ) {
        self.op = op
        self.localId = localId
        self.at = at
        self.conversationId = conversationId
        self.to = to
        self.text = text
        self.messageId = messageId
        self.seq = seq
        self.error = error
    }
}

public enum OutboxStatus: String, Codable, Sendable {
    case queued, sent, failed
}

public struct OutboxEntry: Sendable, Equatable {
    public var localId: String
    /// nil until the conversation with `to` is known.
    public var conversationId: Int64?
    public var to: String?
    public var text: String
    public var queuedAt: Timestamp
    public var status: OutboxStatus
    public var attempts: Int
    public var lastError: String?
    public var messageId: Int64?
    public var seq: Int64?
}

/// The profile's outbox: a message is written here, and fsynced, before any network
/// I/O, and leaves the queued state only when the server has acknowledged it.
public struct Outbox: Sendable {
    public let file: JSONLinesFile

    public init(profile: Profile) { self.file = profile.outbox }

    public static func newLocalId() -> String { UUID().uuidString.lowercased() }

    /// Records the message durably; give the conversation id, or the recipient's email
    /// when the conversation is not known yet.
    @discardableResult
    public func enqueue(localId: String = newLocalId(), conversationId: Int64?, to: String? = nil, text: String) throws(StoreError)
        -> OutboxEntry
    {
        let record = OutboxRecord(op: .queued, localId: localId, at: .now(), conversationId: conversationId, to: to, text: text)
        try file.append([record])
        return OutboxEntry(
            localId: localId, conversationId: conversationId, to: to, text: text, queuedAt: record.at, status: .queued,
            attempts: 0, lastError: nil, messageId: nil, seq: nil)
    }

    public func markSent(localId: String, message: Message) throws(StoreError) {
        try file.append([
            OutboxRecord(op: .sent, localId: localId, at: .now(), messageId: message.id, seq: message.seq)
        ])
    }

    public func markFailed(localId: String, error: String) throws(StoreError) {
        try file.append([OutboxRecord(op: .failed, localId: localId, at: .now(), error: error)])
    }

    /// Every message, oldest first, in its current state.
    public func entries() throws(StoreError) -> [OutboxEntry] {
        let records = try file.read(OutboxRecord.self).records
        var order: [String] = []
        var byId: [String: OutboxEntry] = [:]
        for r in records {
            switch r.op {
            case .queued:
                if var e = byId[r.localId] {
                    // A retry puts a failed message back in the queue.
                    e.status = .queued
                    byId[r.localId] = e
                } else if r.conversationId != nil || r.to != nil, let text = r.text {
                    order.append(r.localId)
                    byId[r.localId] = OutboxEntry(
                        localId: r.localId, conversationId: r.conversationId, to: r.to, text: text, queuedAt: r.at, status: .queued,
                        attempts: 0, lastError: nil, messageId: nil, seq: nil)
                }
            case .sent:
                byId[r.localId]?.status = .sent
                byId[r.localId]?.messageId = r.messageId
                byId[r.localId]?.seq = r.seq
                byId[r.localId]?.attempts += 1
            case .failed:
                byId[r.localId]?.status = .failed
                byId[r.localId]?.lastError = r.error
                byId[r.localId]?.attempts += 1
            }
        }
        return order.compactMap { byId[$0] }
    }
}
