/// A file sent with a message. The bytes live on the server, content-addressed by their
/// SHA-256; the message carries only this description of them (docs/attachments.md).
public struct Attachment: Codable, Hashable, Sendable {
    /// The file's name as the sender gave it (no folders).
    public var name: String
    /// Bytes.
    public var size: Int64
    /// A media type such as `image/png`; `application/octet-stream` when unknown.
    public var type: String
    /// Lower-case hex SHA-256 of the bytes.
    public var sha256: String

    public init(name: String, size: Int64, type: String, sha256: String) {
        self.name = name
        self.size = size
        self.type = type
        self.sha256 = sha256
    }
}

/// An upload in progress or done, as `POST /v1/uploads` and `PATCH /v1/uploads/{sha256}`
/// answer: the server has acknowledged (synced to disk) the first `received` bytes.
public struct UploadState: Codable, Sendable, Equatable {
    public var sha256: String
    public var size: Int64
    public var received: Int64
    /// Every byte is in and the server checked the SHA-256.
    public var complete: Bool
    /// Every body byte the server read for this upload, counting chunks cut short or
    /// sent twice: how much a resumed upload cost (tests compare it with `size`).
    public var bytesIn: Int64

    public init(sha256: String, size: Int64, received: Int64, complete: Bool, bytesIn: Int64) {
        self.sha256 = sha256
        self.size = size
        self.received = received
        self.complete = complete
        self.bytesIn = bytesIn
    }
}

public struct UploadRequest: Codable, Sendable {
    public var sha256: String
    public var size: Int64
    public init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }
}

extension Limits {
    /// Attachments on one message.
    public static let maxAttachments = 16
    /// Bytes of an attachment's name and of its type.
    public static let maxAttachmentNameBytes = 255
    public static let maxAttachmentTypeBytes = 127
    /// Bytes of one upload request's body: the unit of resumption.
    public static let maxUploadChunkBytes = 16 * 1024 * 1024

    /// True for 64 lower-case hex digits.
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Why `attachment` can't be sent, or nil when it can.
    public static func problem(withAttachment a: Attachment) -> String? {
        if !isSHA256(a.sha256) { return "attachment sha256 must be 64 lower-case hex digits" }
        if a.size < 0 { return "attachment size must not be negative" }
        let name = a.name.utf8
        if name.isEmpty || name.count > maxAttachmentNameBytes || a.name.contains("/") || a.name == "." || a.name == ".."
            || a.name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            return "attachment name must be 1 to \(maxAttachmentNameBytes) bytes, without '/' or control characters"
        }
        if a.type.utf8.isEmpty || a.type.utf8.count > maxAttachmentTypeBytes
            || !a.type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        {
            return "attachment type must be 1 to \(maxAttachmentTypeBytes) printable ASCII characters"
        }
        return nil
    }
}
