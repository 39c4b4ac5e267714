import NexusCore

/// One notification's words. Others wrote the name and the text: both are made inert
/// (no control, format or bidi character survives), and `private` leaves the text out.
struct DesktopNotice: Equatable {
    var title: String
    var body: String

    /// A message from `sender`, in the group `group` (nil for a direct conversation).
    /// `count` above 1 says how many came in the window it stands for.
    static func of(_ message: Message, sender: String, group: String?, count: Int, private hide: Bool) -> DesktopNotice {
        let from = Self.inert(group.map { "\(sender) in \($0)" } ?? sender)
        if hide {
            return DesktopNotice(title: "Nexus", body: count > 1 ? "\(count) new messages from \(from)" : "New message from \(from)")
        }
        // The first line people would read: the caption, or the first file's line.
        let line = AttachmentText.body(message).split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        let body = Self.clip(Self.inert(line), to: 200)
        return DesktopNotice(title: from, body: count > 1 ? "\(body) (+\(count - 1) more)" : body)
    }

    /// The text with every character a terminal or a notification daemon could act on
    /// (controls, ESC and BEL that would end a sequence, bidi and other format characters)
    /// replaced by its visible escape.
    static func inert(_ untrusted: String) -> String { TerminalText.escapeLine(untrusted) }

    private static func clip(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
