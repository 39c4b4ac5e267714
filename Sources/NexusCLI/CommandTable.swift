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
        TailCommand.spec,
        HistoryCommand.spec,
        SearchCommand.spec,
        ReadCommand.spec,
        TypingCommand.spec,
        StatusCommand.spec,
        HookCommand.spec,
        QueueCommand.spec,
        RetryCommand.spec,
        CacheCommand.spec,
        TokenCommand.spec,
        BotCommand.spec,
        HelpCommand.spec,
        CompletionCommand.spec,
    ]
}
