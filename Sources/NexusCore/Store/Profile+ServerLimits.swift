/// What the profile's server last said of its limits (`Nexus-Max-Attachment`), so a
/// command can refuse what the server would refuse before anything is queued, offline too.
extension Profile {
    var maxAttachmentPath: String { directory + "/max-attachment" }

    /// The largest attachment the server took, in bytes, when it last said; nil: never said.
    public func loadMaxAttachment() -> Int64? {
        guard let bytes = try? FileSystem.readFile(maxAttachmentPath) else { return nil }
        return Int64(String(decoding: bytes.filter { $0 != 10 }, as: UTF8.self))
    }

    /// Writes only when it differs from what is saved: most commands find it unchanged.
    public func saveMaxAttachment(_ limit: Int64) throws(StoreError) {
        guard loadMaxAttachment() != limit else { return }
        try ensureDirectory()
        try FileSystem.writeAtomically(maxAttachmentPath, Array("\(limit)\n".utf8), durable: false)
    }
}
