import NexusCore

/// The entry point: parses, sets up what the command requires, runs it, and turns
/// errors into messages and exit codes. Commands never exit or touch stdout directly.
public enum NexusCLI {
    public static let version = BuildInfo.version

    /// --profile, else $NEXUS_PROFILE, else the config file's, else "default".
    static func profileName(flag: String?, environment: [String: String], config: Config?) -> String {
        flag ?? environment["NEXUS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? config?.profile ?? Profile.defaultName
    }

    /// `replacedArguments`: the arguments that were not valid UTF-8 (as decoded, with U+FFFD),
    /// with their bytes as given, so a command can say which lines were changed.
    public static func run(
        arguments: [String], environment: [String: String], terminal: any Terminal, replacedArguments: [String: [UInt8]] = [:]
    ) -> Int32 {
        if arguments.first == "__complete" {
            // The shell completion scripts' back end: candidates, one a line.
            let name = profileName(flag: nil, environment: environment, config: try? Config.load(environment: environment))
            let profile = Profile(name: name, home: Profile.home(environment: environment))
            // A candidate the shell would show or insert garbled (an email with a control
            // character, from the server) is left out rather than escaped into a wrong value.
            // With --described (zsh, fish), each line is the word, a tab, and what it names.
            let described = arguments.dropFirst().first == "--described"
            for candidate in Completion.described(Array(arguments.dropFirst(described ? 2 : 1)), profile: profile)
            where !candidate.value.unicodeScalars.contains(where: TerminalText.needsEscape) {
                terminal.writeOut(described ? candidate.value + "\t" + CompletionArguments.preview(candidate.description, limit: 60) + "\n" : candidate.value + "\n")
            }
            return ExitCode.ok.rawValue
        }
        if arguments.count == 2 && arguments[0] == "__generate-docs" {
            // `make docs`: the reference pages and the man page, from the table.
            let folder = arguments[1]
            do {
                try FileSystem.makeDirectories(folder + "/commands")
                for (name, text) in Manual.pages() { try FileSystem.writeAtomically(folder + "/commands/" + name, Array(text.utf8), mode: 0o644) }
                try FileSystem.writeAtomically(folder + "/nexusctl.1", Array(Manual.manPage().utf8), mode: 0o644)
            } catch {
                terminal.writeErr("error: \(error)\n")
                return ExitCode.store.rawValue
            }
            return ExitCode.ok.rawValue
        }
        let parser = Parser(commands: CommandTable.all)
        let plain = Output(terminal: terminal, json: false, quiet: false, color: false)
        let invocation: Invocation
        let spec: CommandSpec?
        do {
            (invocation, spec) = try parser.parse(arguments)
        } catch {
            plain.error(CLIError(error))
            return ExitCode.usage.rawValue
        }

        var fields: Set<String>?
        if let list = invocation[GlobalOptions.fields] {
            let names = list.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
            let known = spec?.jsonFields ?? []
            if let unknown = names.first(where: { !known.contains($0) }) {
                let error: CLIError = known.isEmpty
                    ? .usage("'\(invocation.path.joined(separator: " "))' has no JSON fields to choose from")
                    : .usage("unknown JSON field '\(unknown)'", hint: "the fields are: \(known.joined(separator: ", ")).")
                plain.error(error)
                return ExitCode.usage.rawValue
            }
            fields = Set(names)
        }
        let json = invocation[GlobalOptions.json] || fields != nil
        let color = invocation.given(GlobalOptions.color)
            ?? (terminal.outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb")
        let output = Output(terminal: terminal, json: json, quiet: invocation[GlobalOptions.quiet], color: color, fields: fields)

        if invocation[GlobalOptions.version] {
            if json {
                output.document(["version": version, "commit": BuildInfo.commit])
            } else {
                output.line("nexusctl \(BuildInfo.versionAndCommit)")
            }
            return ExitCode.ok.rawValue
        }
        guard let spec, !invocation[GlobalOptions.help] else {
            terminal.writeOut(spec.map { Help.command(invocation.path, $0) } ?? Help.overview(CommandTable.all))
            return ExitCode.ok.rawValue
        }
        guard let run = spec.run else {
            terminal.writeOut(Help.command(invocation.path, spec))
            return ExitCode.ok.rawValue
        }

        let config: Config
        do {
            config = try Config.load(environment: environment)
        } catch {
            output.error(.usage("the config file is not valid: \(error)"))
            return ExitCode.usage.rawValue
        }
        let profileName = profileName(flag: invocation[GlobalOptions.profile], environment: environment, config: config)
        if let problem = Profile.problem(withName: profileName) {
            output.error(.usage(problem))
            return ExitCode.usage.rawValue
        }
        let context = CommandContext(
            invocation: invocation, output: output, environment: environment, config: config,
            profile: Profile(name: profileName, home: Profile.home(environment: environment)))
        context.replacedArguments = replacedArguments
        // `send` says it of its text itself, in its result too; elsewhere a word is told here.
        if spec.name != "send" {
            for (text, _) in replacedArguments.sorted(by: { $0.key < $1.key }) {
                output.warn("the argument '\(text)' has bytes that are not valid UTF-8; they were replaced with U+FFFD (\u{FFFD})")
            }
        }
        defer {
            context.saveRenewedExpiry()
            context.saveServerLimits()
        }
        do throws(CLIError) {
            if spec.requirements.contains(where: { $0 == .session }) {
                if let token = environment["NEXUS_TOKEN"]?.trimmingSpaces(), !token.isEmpty {
                    context.useEnvironmentToken(token)
                } else {
                    do {
                        context.session = try context.profile.loadSession()
                    } catch {
                        throw CLIError(error)
                    }
                }
                _ = try context.requireSession()
            }
            let code = try run(context)
            if code == .ok && context.reachedServer && spec.deliversQueueAfterwards {
                OutboxSending.opportunistic(context)
            }
            if code == .ok { CacheRetention(profile: context.profile).pruneIfDue() }
            return code.rawValue
        } catch {
            output.error(error)
            return error.code.rawValue
        }
    }
}
