import LibC
import NexusCore

/// What register and login share: reading the password and saving the session.
enum Accounts {
    /// Every command that reads a password declares this key, if with help of its own.
    static let passwordStdin = Flag("password-stdin", help: "read the password from the first line of stdin (for scripts)",
        secret: "password")

    /// The password from stdin (--password-stdin) or a no-echo prompt; never from argv,
    /// where other users could read it in the process list. A new password (`confirm`)
    /// must pass `rule`, checked as soon as it is typed: at a prompt a refused or mistyped
    /// one is asked for again, up to three times, instead of ending the command.
    /// `prompt`: what the prompt asks for; with --password-stdin each call reads the next line.
    static func password(
        _ context: CommandContext, confirm: Bool, prompt: String = "Password", rule: (String) -> String? = { _ in nil }
    ) throws(CLIError) -> String {
        if context.invocation[passwordStdin] {
            guard let line = context.terminal.readInputLine(), !line.isEmpty else {
                throw .usage("--password-stdin was given but stdin held no \(prompt.lowercased())")
            }
            if let problem = rule(line) { throw .usage(problem) }
            return line
        }
        guard context.terminal.inputIsTerminal || context.terminal.errorIsTerminal else {
            throw .usage("no terminal to ask for the password on", hint: "pipe it in and pass --password-stdin.")
        }
        var problem = "no password was typed"
        for _ in 0..<(confirm ? 3 : 1) {
            guard let password = context.terminal.readSecret(prompt: "\(prompt): ") else { break }
            guard confirm else { return password }
            if let refused = rule(password) {
                problem = refused
            } else if context.terminal.readSecret(prompt: "\(prompt) again: ") != password {
                problem = "the two passwords differ"
            } else {
                return password
            }
            context.terminal.writeErr("\(problem); try again.\n")
        }
        throw .usage(problem)
    }

    /// What the server asks of a new password, checked before it is sent.
    static func newPasswordProblem(_ password: String) -> String? {
        if password.count < Limits.minPasswordLength { return "the password must be at least \(Limits.minPasswordLength) characters" }
        return password.unicodeScalars.contains("\u{0}") ? "the password must not contain NUL characters" : nil
    }

    /// Fails before anything is sent when the profile's folder can't be written: an
    /// account made on the server whose session can't be saved is made half-way, and a
    /// retry would meet "already exists".
    static func checkWritable(_ context: CommandContext) throws(CLIError) {
        let probe = context.profile.directory + "/.write-check"
        do {
            try context.profile.ensureDirectory()
            try FileSystem.writeAtomically(probe, [], durable: false)
        } catch {
            throw CLIError(.store, "can't save a session in profile '\(context.profile.name)': \(error)",
                           hint: "nothing was sent; make $NEXUS_HOME (\(Profile.home(environment: context.environment))) writable, or point it elsewhere.")
        }
        unlink(probe)
    }

    /// `nexusctl <words>` with the --profile and --server of this command line, so a hint
    /// can be pasted as it is and reach the same account.
    static func commandLine(_ context: CommandContext, _ words: String) -> String {
        let flags = [GlobalOptions.profile, GlobalOptions.server].compactMap { option in
            context.invocation[option].map { "--\(option.spec.name) \(shellQuoted($0)) " }
        }
        return "nexusctl " + flags.joined() + words
    }

    private static func shellQuoted(_ word: String) -> String {
        word.allSatisfy { $0.isLetter || $0.isNumber || "-_.:/,@".contains($0) } ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static func save(_ auth: AuthResponse, _ context: CommandContext, verb: String) throws(CLIError) -> ExitCode {
        let address = try context.serverAddress()
        let servers = try context.serverAddresses().map(\.description).joined(separator: ",")
        let session = Session(server: servers, token: auth.token, user: auth.user, createdAt: .now(), expiresAt: auth.expiresAt)
        let previous = try? context.profile.loadSession()
        do {
            // The CA named on its command line is the profile's from now on ($NEXUS_CACERT
            // is there for every command anyway); a login elsewhere without one drops it,
            // and one to the same server keeps it.
            if let given = context.invocation[GlobalOptions.cacert] {
                try context.profile.saveCA(from: given)
            } else if previous?.server != servers {
                try context.profile.saveCA(from: nil)
            }
            try context.profile.saveSession(session)
        } catch {
            throw CLIError(error)
        }
        if context.output.json {
            context.output.document(AccountView(user: auth.user, profile: context.profile.name, server: servers))
        } else {
            context.output.note("\(verb) as \(auth.user.displayName) <\(auth.user.email)> on \(address) (profile '\(context.profile.name)').")
        }
        return .ok
    }
}
