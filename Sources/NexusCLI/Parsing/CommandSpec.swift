/// One option in a command's declaration. Parsing, `--help` and completion all come
/// from these, so an option is declared once.
public struct OptionSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A boolean switch; `--no-NAME` is accepted too.
        case flag
        /// Takes a value: `--name VALUE`, `--name=VALUE`, `-n VALUE` or `-nVALUE`.
        case value(placeholder: String)
        /// A switch that may say how: `--name` reads as `bare`, `--name=VALUE` as VALUE,
        /// `--no-name` as "off". A word after it stays an argument.
        case optionalValue(placeholder: String, bare: String)
    }

    public var name: String
    public var short: Character?
    public var kind: Kind
    public var help: String
    /// The secret this option reads another way (from stdin), e.g. "password". The parser
    /// refuses `--password` and `--password=…` where this option is accepted: in argv the
    /// secret is readable in the process list, and as a prefix of this option the word would
    /// be taken for it, leaving the secret as an argument to be echoed back in an error.
    public var secret: String?

    /// Made by the keys (`Flag`, `Value`, `Values`), which commands read the option with.
    init(_ name: String, short: Character? = nil, _ kind: Kind = .flag, help: String, secret: String? = nil) {
        self.name = name
        self.short = short
        self.kind = kind
        self.help = help
        self.secret = secret
    }

    public var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }
}

/// What a command needs before it runs; the runner provides it, so no command sets
/// itself up (git's RUN_SETUP). There is no flush-lock requirement on purpose: `Sending`
/// takes that lock for exactly one delivery, and a lock held by the runner for a whole
/// command would stop a `tail -f` or a second flush behind it.
public enum Requirement: Sendable {
    /// A logged-in profile: its session and an API client carrying the token.
    case session
}

/// A command as declared in the command table.
public struct CommandSpec: Sendable {
    public var name: String
    public var summary: String
    /// Synopsis lines after the command path, e.g. "<conversation> <text>...".
    public var usage: [String]
    /// Paragraphs shown under the synopsis in `--help`.
    public var details: String
    public var options: [OptionSpec]
    /// How many positional arguments it takes.
    public var arguments: ClosedRange<Int>
    public var subcommands: [CommandSpec]
    public var requirements: [Requirement]
    /// After a successful run that reached the server, the runner delivers what is due in
    /// the outbox. Off for commands that deliver it themselves or don't talk to the server.
    public var deliversQueueAfterwards: Bool
    /// The fields of each JSON item this command prints, in the order docs list them;
    /// --fields chooses among them.
    public var jsonFields: [String]
    /// Example command lines with a line each of explanation, for help and the docs.
    public var examples: [(String, String)]
    /// After the first argument, a `-word` that is no option is an argument (a search's
    /// word to leave out) rather than an error.
    public var takesMinusWords: Bool
    public var run: (@Sendable (CommandContext) throws(CLIError) -> ExitCode)?

    public init(
        name: String, summary: String, usage: [String] = [""], details: String = "", options: [any OptionKey] = [],
        arguments: ClosedRange<Int> = 0...0, subcommands: [CommandSpec] = [], requirements: [Requirement] = [],
        deliversQueueAfterwards: Bool = false, jsonFields: [String] = [], examples: [(String, String)] = [], takesMinusWords: Bool = false,
        run: (@Sendable (CommandContext) throws(CLIError) -> ExitCode)?
    ) {
        self.jsonFields = jsonFields
        self.examples = examples
        self.takesMinusWords = takesMinusWords
        self.name = name
        self.summary = summary
        self.usage = usage
        self.details = details
        self.options = options.map(\.spec)
        self.arguments = arguments
        self.subcommands = subcommands
        self.requirements = requirements
        self.deliversQueueAfterwards = deliversQueueAfterwards
        self.run = run
    }
}

/// The options every command accepts; the runner and the context read them.
public enum GlobalOptions {
    public static let server = Value("server", "URL", help: "nexusd to talk to; replicas as URL,URL,… tried in turn (default: $NEXUS_SERVER, else the server the profile logged in to, else the config file's `server =`, else http://127.0.0.1:8787)")
    public static let cacert = Value("cacert", "FILE", help: "trust the CA certificates in this PEM file for https:// instead of the system's (also $NEXUS_CACERT, or `cacert =` in the config)")
    public static let allowPlainHTTP = Flag("allow-plain-http", help: "let a password or token go over plain http:// to a host that is not loopback (a private link; also `allow-plain-http = yes` in the config)")
    public static let profile = Value("profile", "NAME", help: "account profile to use (default: $NEXUS_PROFILE or 'default')")
    public static let json = Flag("json", help: "print JSON on stdout: one document, or one object a line for streams")
    public static let fields = Value("fields", "A,B", help: "with JSON, keep only these fields of each item, each whole (implies --json; see docs/json.md)")
    public static let quiet = Flag("quiet", short: "q", help: "print nothing but errors and requested data")
    public static let color = Flag("color", help: "colour text output (default: on a terminal unless $NO_COLOR is set; --no-color turns it off)")
    public static let help = Flag("help", short: "h", help: "show help for the command")
    public static let version = Flag("version", help: "print the version and exit")

    /// In the order help lists them.
    public static let all: [OptionSpec] = ([server, cacert, allowPlainHTTP, profile, json, fields, quiet, color, help, version] as [any OptionKey]).map(\.spec)
}
