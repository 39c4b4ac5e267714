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
        if let first = (failed ?? report.failed).first { return failureCode(first, report) }
        guard report.stillQueued > 0 else { return .ok }
        return report.transportSecurity == nil ? .unavailable : .tls
    }

    /// A delivery's failure told by its cause when that is the credentials (the token's or
    /// the session's problem and its fix, exit 4: a retry with them can't help) or a group
    /// this account has left; nil otherwise.
    static func refusal(of failed: OutboxEntry?, _ report: DeliveryReport, _ context: CommandContext) -> CLIError? {
        if report.authRefused {
            // A password session keeps the product's words; a token's fix is another token.
            guard context.usesAccessToken, let cause = report.authError else {
                return CLIError(.auth, DeliveryText.auth, hint: context.loginAgainHint)
            }
            var error = context.failure(cause)
            error.hint = (error.hint.map { $0 + " " } ?? "") + "Then `nexusctl retry --all` sends what failed."
            return error
        }
        if let failed, let why = report.outOfScope[failed.localId] {
            return context.failure(.server(status: 403, code: "insufficient_scope", message: why, retryAfter: nil))
        }
        if let failed, let former = FormerMember.refusal(failed, report, context) { return former }
        return nil
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

    static func failureCode(_ entry: OutboxEntry, _ report: DeliveryReport) -> ExitCode {
        if report.authRefused { return .auth }
        if report.notFound.contains(entry.localId) { return .notFound }
        return .failure
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
