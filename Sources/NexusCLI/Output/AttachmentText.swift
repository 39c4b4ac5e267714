import NexusCore

/// A message's text as people read it: the caption, then a line for each file,
/// "📎 name (size, type)".
enum AttachmentText {
    static func body(_ m: Message) -> String {
        guard let attachments = m.attachments, !attachments.isEmpty else { return m.text }
        let lines = attachments.map { "📎 \($0.name) (\(LocalFile.humanSize($0.size)), \($0.type))" }
        let caption = m.text.allSatisfy(\.isWhitespace) ? [] : [m.text]
        return (caption + lines).joined(separator: "\n")
    }
}
