/// A mistake on the command line: where it is and what would fix it. Equatable, so a
/// test can expect one exactly.
public enum ParseError: Error, Equatable, Sendable {
    case unknownCommand(String, suggestion: String?)
    /// A word after a group (`queue flsh`) that is none of its commands.
    case unknownSubcommand(String, group: String, suggestion: String?, usage: [String])
    case unknownOption(String, command: String, suggestion: String?)
    /// A `-word` whose letter is no short option: named whole, as it was typed.
    case unknownShortOption(String, letter: Character, command: String)
    case ambiguousOption(String, command: String, candidates: [String])
    case missingValue(option: String, command: String)
    case unexpectedValue(option: String, command: String)
    case missingArgument(command: String, usage: String)
    case tooManyArguments(command: String, extra: String, usage: String)
    /// `--password` or `--password=…`: a password in argv is readable in the process list.
    case passwordInArguments(command: String)

    public var message: String {
        switch self {
        case .unknownCommand(let name, _):
            return "'\(name)' is not a nexusctl command"
        case .unknownSubcommand(let name, let group, _, _):
            return "'\(name)' is not a 'nexusctl \(group)' command"
        case .unknownOption(let option, let command, _):
            return "unknown option '\(option)' for '\(command)'"
        case .unknownShortOption(let argument, let letter, let command):
            return "unknown option '\(argument)' for '\(command)' (it has no option -\(letter))"
        case .ambiguousOption(let option, let command, let candidates):
            return "option '\(option)' for '\(command)' is ambiguous: it could be \(candidates.map { "--" + $0 }.joined(separator: " or "))"
        case .missingValue(let option, _):
            return "option '--\(option)' needs a value"
        case .unexpectedValue(let option, _):
            return "option '--\(option)' takes no value"
        case .missingArgument(let command, _):
            return "'\(command)' needs more arguments"
        case .tooManyArguments(let command, let extra, _):
            return "'\(command)' does not take the argument '\(extra)'"
        case .passwordInArguments(let command):
            return "'\(command)' takes no password on the command line, where other users can read it in the process list"
        }
    }

    /// One line that tells the fix.
    public var hint: String {
        switch self {
        case .unknownCommand(_, let suggestion?):
            return "did you mean '\(suggestion)'? See 'nexusctl --help'."
        case .unknownCommand:
            return "see 'nexusctl --help' for the commands."
        case .unknownSubcommand(_, let group, let suggestion, let usage):
            // One line, since a hint is one: the group's synopses side by side.
            return (suggestion.map { "did you mean '\($0)'? " } ?? "")
                + "usage: " + usage.map { "\(Self.line(group)) \($0)" }.joined(separator: " | ")
        case .unknownOption(_, let command, let suggestion?):
            return "did you mean --\(suggestion)? See '\(Self.help(command))'."
        case .unknownOption(_, let command, nil), .ambiguousOption(_, let command, _), .missingValue(_, let command),
             .unexpectedValue(_, let command):
            return "see '\(Self.help(command))'."
        case .missingArgument(let command, let usage), .tooManyArguments(let command, _, let usage):
            return "usage: \(Self.line(command)) \(usage)"
        case .unknownShortOption(let argument, _, let command):
            let shown = argument.contains(where: { !($0.isLetter || $0.isNumber || "-_.@".contains($0)) }) ? "'\(argument)'" : argument
            return "an argument that starts with '-' goes after '--', as in: \(Self.line(command)) -- \(shown); see '\(Self.help(command))'."
        case .passwordInArguments:
            return "leave it out to be asked without echo, or pipe it in with --password-stdin."
        }
    }

    /// The command line that runs `command`, which is "nexusctl" itself before any command word.
    private static func line(_ command: String) -> String {
        command == "nexusctl" ? "nexusctl" : "nexusctl \(command)"
    }

    /// The help command for `command`, which is "nexusctl" itself before any command word.
    private static func help(_ command: String) -> String {
        line(command) + " --help"
    }
}
