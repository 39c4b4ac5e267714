#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a message: uploaded before the message goes, and the outbox's own copies
/// (of stdin) removed once it went.
extension OutboxDelivery {
    static func item(_ e: OutboxEntry) -> BatchItem {
        BatchItem(
            conversationId: e.conversationId ?? 0, localId: e.localId, text: e.text, replyTo: e.replyTo,
            attachments: e.files.isEmpty ? nil : e.files.map(\.attachment))
    }

    /// Uploads each file of `e`. Returns why the message must fail when a file is gone or
    /// changed; throws what the server or the network said, as for a send.
    func uploadFiles(of e: OutboxEntry) throws(APIError) -> String? {
        for file in e.files {
            do {
                try api.upload(file) { [progress, onUpload] done, _ in
                    progress?.record(file.sha256, bytes: done)
                    onUpload?(file, done)
                }
            } catch {
                switch error {
                case .file(let why): return why
                case .api(let error): throw error
                }
            }
        }
        return nil
    }

    func removeSpooledFiles(of sent: [OutboxEntry]) {
        Self.removeSpooledFiles(of: sent, progress: progress)
    }

    /// The outbox's own copies of the files of messages that are done with (sent, failed for
    /// good, dropped), and their upload notes.
    static func removeSpooledFiles(of sent: [OutboxEntry], progress: UploadProgress?) {
        for file in sent.flatMap(\.files) {
            if file.spooled == true { unlink(file.path) }
            progress?.forget(file.sha256)
        }
    }
}
