import NexusCore

/// A message named on the command line (`CONVERSATION/SEQ`), as every command that changes
/// or answers a message takes it.
enum MessageArgument {
    static func parse(_ text: String, option: String? = nil) throws(CLIError) -> MessageReference {
        guard let ref = MessageReference(text) else {
            throw CLIError.usage(
                "\(option.map { "\($0) " } ?? "")'\(text)' is not a message",
                hint: MessageReference.help + ".")
        }
        return ref
    }
}
