/// Every command, declared once. Parsing, help and completion read this table.
public enum CommandTable {
    public static let all: [CommandSpec] = [
        RegisterCommand.spec,
        LoginCommand.spec,
        LogoutCommand.spec,
        WhoamiCommand.spec,
        UsersCommand.spec,
        NewCommand.spec,
        ConvosCommand.spec,
        SendCommand.spec,
        TailCommand.spec,
        QueueCommand.spec,
        RetryCommand.spec,
        HelpCommand.spec,
        CompletionCommand.spec,
    ]
}
