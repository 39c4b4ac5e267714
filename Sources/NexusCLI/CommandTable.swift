/// Every command, declared once. Parsing, help and completion read this table.
public enum CommandTable {
    public static let all: [CommandSpec] = [
        RegisterCommand.spec,
        LoginCommand.spec,
        LogoutCommand.spec,
        WhoamiCommand.spec,
        ProfilesCommand.spec,
        UsersCommand.spec,
        NewCommand.spec,
        ConvosCommand.spec,
        SendCommand.spec,
        TailCommand.spec.deliveringQueueAfterwards(),
        HistoryCommand.spec,
        ReadCommand.spec,
        TypingCommand.spec,
        StatusCommand.spec,
        QueueCommand.spec,
        RetryCommand.spec,
        CacheCommand.spec,
        HelpCommand.spec,
        CompletionCommand.spec,
    ]
}

extension CommandSpec {
    /// A shim: `tail`'s spec is in TailCommand.swift, which another branch rewrites; the
    /// flag moves into that spec once both are merged.
    func deliveringQueueAfterwards() -> CommandSpec {
        var spec = self
        spec.deliversQueueAfterwards = true
        return spec
    }
}
