import NexusCore

/// Outbox sending for send, queue flush, retry and the delivery after other commands: one call
/// into the core's `Sending`, and the words for its outcome.
enum OutboxSending {
    /// Sending for this command's profile and server. Making it checks the server
    /// addresses, so call it before anything is queued: a usage error queues nothing.
    static func sending(_ context: CommandContext) throws(CLIError) -> Sending {
        var sending = Sending(profile: context.profile, api: try context.api())
        sending.outbox.limit = context.config.queueLimit
        sending.retryLimitSeconds = context.config.retryLimitSeconds
        (sending.outbox.author, sending.profileOwner) = authors(context)
        let terminal = context.terminal
        if terminal.errorIsTerminal && !context.output.quiet {
            let threshold = sending.maxItems
            sending.onProgress = { done, total in
                guard total > threshold else { return }
                terminal.writeErr("\rSending \(done)/\(total)…" + (done == total ? "\n" : ""))
            }
        }
        return sending
    }

    /// The account this command acts as, and the profile's own (its saved session's), whose
    /// are the messages an older nexusctl queued without an author.
    static func authors(_ context: CommandContext) -> (me: OutboxAuthor?, owner: Int64?) {
        guard let session = context.session else { return (nil, nil) }
        guard context.tokenFromEnvironment else { return (OutboxAuthor(user: session.user), session.user.id) }
        var me = OutboxAuthor(token: session.token)
        if session.user.id != 0 { (me.userId, me.email) = (session.user.id, session.user.email) }
        return (me, (try? context.profile.loadSession())?.user.id)
    }

    /// Says which queued messages were left for another account, and how they go.
    static func noteOtherAuthors(_ report: DeliveryReport, _ context: CommandContext) {
        let byAuthor = Dictionary(grouping: report.otherAuthors) { $0.author?.name ?? "the profile's account" }
        for (name, entries) in byAuthor.sorted(by: { $0.key < $1.key }) {
            context.output.note("\(entries.count) queued message(s) wait for \(name), who queued them: a `queue flush` with that account's credentials sends them (`nexusctl queue` lists them).")
        }
    }

    /// Runs one delivery, and names what the cache could not keep and damaged records.
    static func run(
        _ sending: Sending, _ scope: Sending.Scope, ignoreBackoff: Bool, lock: Sending.LockPolicy, _ context: CommandContext
    ) throws(CLIError) -> Sending.Outcome {
        let outcome: Sending.Outcome
        do {
            outcome = try sending.deliver(scope, ignoreBackoff: ignoreBackoff, lock: lock)
        } catch {
            throw CLIError(error)
        }
        return warnings(outcome, context)
    }

    /// Names what the cache could not keep and damaged records; returns `outcome`.
    /// Waits for another delivery (a `queue flush` or `send`) to finish; only a person
    /// watching hears of it. `what` is what is queued meanwhile ("the message", "the change").
    static func waitingLock(_ context: CommandContext, what: String) -> Sending.LockPolicy {
        .wait(onBusy: {
            guard context.terminal.errorIsTerminal else { return }
            context.output.note("Waiting for another delivery (a `queue flush` or `send`) to finish; \(what) is queued safely…")
        })
    }

    static func warnings(_ outcome: Sending.Outcome, _ context: CommandContext) -> Sending.Outcome {
        context.warn(outcome.cacheProblems)
        warnDamaged(outcome.damaged, context)
        return outcome
    }

    /// The exit code a delivery earns: a failure's own code, else 75 while anything is
    /// still queued, else 0.
    static func exitCode(_ report: DeliveryReport, failed: [OutboxEntry]? = nil) -> ExitCode {
        if let first = (failed ?? report.failed).first {
            guard case .failed(let failure) = report.verdicts(of: [first])[0].kind else { return .failure }
            return ExitCode(failure)
        }
        guard report.stillQueued > 0 else { return .ok }
        return report.transportSecurity == nil ? .unavailable : .tls
    }

    /// A delivery's failure told by its cause when that is the credentials, the token's
    /// scope or a group this account has left; nil otherwise. For `queue flush` and
    /// `retry`, whose run can refuse the credentials before any of their messages failed.
    static func refusal(of failed: OutboxEntry?, _ report: DeliveryReport, _ context: CommandContext) -> CLIError? {
        if report.authRefused { return credentialsRefused(report, context) }
        guard let failed, case .failed(let failure) = report.verdicts(of: [failed])[0].kind else { return nil }
        return refusal(failure, of: failed, context)
    }

    /// The error for one of the command's own entries that failed: told by its cause when
    /// a retry can't help (see `refusal`), else in the entry's words, with `hint`.
    static func failure(
        _ failure: DeliveryVerdict.Failure, of entry: OutboxEntry, _ report: DeliveryReport, _ context: CommandContext, hint: String? = nil
    ) -> CLIError {
        if failure == .credentials { return credentialsRefused(report, context) }
        return refusal(failure, of: entry, context) ?? CLIError(ExitCode(failure), entry.lastError ?? DeliveryText.other, hint: hint)
    }

    /// A failure whose fix is not a retry: the token's scope (its problem and fix) or a group
    /// this account has left (how to get back in); nil otherwise.
    private static func refusal(_ failure: DeliveryVerdict.Failure, of entry: OutboxEntry, _ context: CommandContext) -> CLIError? {
        switch failure {
        case .outOfScope(let why): context.failure(.server(status: 403, code: "insufficient_scope", message: why, retryAfter: nil))
        case .notFound: FormerMember.refusal(entry, context)
        case .credentials, .forbidden, .refused: nil
        }
    }

    /// The server refused the credentials of the run (exit 4): a password session keeps the
    /// product's words; a token's fix is another token.
    private static func credentialsRefused(_ report: DeliveryReport, _ context: CommandContext) -> CLIError {
        guard context.usesAccessToken, let cause = report.authError else {
            return CLIError(.auth, DeliveryText.auth, hint: context.loginAgainHint)
        }
        var error = context.failure(cause)
        error.hint = (error.hint.map { $0 + " " } ?? "") + "Then `nexusctl retry --all` sends what failed."
        return error
    }

    /// The server refused the credentials before anything was sent (resolving an email,
    /// say): that is no connection trouble but a login's, exit 4. `what` stays queued.
    static func throwIfCredentialsRefused(_ report: DeliveryReport, _ context: CommandContext, what: String) throws(CLIError) {
        guard report.authRefused else { return }
        let fix = "\(what.prefix(1).uppercased() + what.dropFirst()) stays queued; `nexusctl queue flush` sends it once the credentials are accepted."
        guard context.usesAccessToken, let cause = report.authError else {
            throw CLIError(.auth, DeliveryText.auth, hint: "run `nexusctl login <email>`. " + fix)
        }
        var error = context.failure(cause)
        error.hint = (error.hint.map { $0 + " " } ?? "") + fix
        throw error
    }

    /// What a command says of its own entries still queued at its end: why they wait and
    /// how they go; 75, or the TLS error when no secure connection could be made.
    static func stillQueued(_ report: DeliveryReport, _ context: CommandContext, delivers what: String = "it") throws(CLIError) -> ExitCode {
        context.output.warn("\(report.stopReason ?? DeliveryText.network)")
        context.output.note("Queued safely in the outbox; `nexusctl queue flush` (or the next online command) delivers \(what).")
        if let security = report.transportSecurity { throw CLIError(security, server: try context.serverAddress()) }
        return .unavailable
    }

    /// Names the outbox's damage on stderr; returns `contents`.
    @discardableResult
    static func warnDamage(_ contents: Outbox.Contents, _ context: CommandContext) -> Outbox.Contents {
        warnDamaged(contents.damaged, context)
        if contents.tornTail {
            context.output.warn("the outbox ends in 1 unreadable record, torn by a crash mid-write (no command reported it done); it is skipped, and cut off on the next write")
        }
        return contents
    }

    /// Each damaged line, by number and what can be read of it: its message may never
    /// be sent, and only the user can decide what to do about it.
    static func warnDamaged(_ damaged: [DamagedRecord], _ context: CommandContext) {
        guard !damaged.isEmpty else { return }
        for d in damaged {
            context.output.warn("the outbox's line \(d.line) is damaged and can't be read" + (d.localId.map { " (localId \($0))" } ?? "") + "; it is kept as it is, and not sent")
        }
        context.output.note("See and drop damaged records with `nexusctl queue repair`; until then `queue flush` exits \(ExitCode.store.rawValue).")
    }

    /// Delivers what is due, quietly, after another command reached the server; skipped
    /// when a flush is already running. Its failures never change the command's result.
    static func opportunistic(_ context: CommandContext, ignoreBackoff: Bool = false) {
        guard let sending = try? sending(context),
              let outcome = try? sending.deliver(.everything, ignoreBackoff: ignoreBackoff, lock: .skipIfBusy),
              outcome.ran
        else { return }
        let report = outcome.report
        context.warn(outcome.cacheProblems)
        warnDamaged(outcome.damaged, context)
        if !report.sent.isEmpty { context.output.note("Delivered \(report.sent.count) queued message(s).") }
        for e in report.failed { context.output.warn("\(e.localId): \(e.lastError ?? "failed")") }
    }
}
