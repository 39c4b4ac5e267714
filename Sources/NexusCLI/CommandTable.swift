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
        DownloadCommand.spec,
        TailCommand.spec,
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
