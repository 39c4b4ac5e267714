import NexusCore

/// `s` on a chosen message: its files saved in the working directory, through the same
/// checks as `download` (the SHA-256 before the name is taken, names that hide text
/// replaced, an existing file left alone).
extension ChatWorker {
    func save(_ message: Message) {
        let files = message.attachments ?? []
        guard !files.isEmpty else { return say("That message has no file to save.") }
        async { [self] in
            var said: [String] = []
            for (i, a) in files.enumerated() {
                let name = TerminalText.fileName(a.name)
                let download = Download(api: api, conversationId: message.conversationId, seq: message.seq, index: i, attachment: a)
                do throws(DownloadFailure) {
                    _ = try download.save(to: name, force: false)
                    said.append("Saved \(name) (\(LocalFile.humanSize(a.size))).")
                } catch {
                    switch error {
                    case .exists: said.append("\(name) exists; nothing was written (`nexusctl download \(message.reference) --out NAME` saves it elsewhere).")
                    default: said.append("\(a.name) was not saved: \(error)")
                    }
                }
            }
            say(said.joined(separator: " "))
        }
    }

    private func say(_ words: String) { model.change { $0.notice = words } }
}
