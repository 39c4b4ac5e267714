import NexusCore

extension CommandContext {
    /// The caller's id; for $NEXUS_TOKEN, asked of the server (nil when it can't be reached).
    func userIdIfKnown() -> Int64? {
        tokenFromEnvironment ? (try? me())?.id : session?.user.id
    }

    /// Offline-first reads for this profile and server.
    func reading() throws(CLIError) -> Reading {
        Reading(profile: profile, api: try api(), me: userIdIfKnown())
    }

    /// One offline-first read; its cache problems are warned about, its failure is the
    /// usual error for this server.
    func read<Value>(_ body: (Reading) throws(ReadError) -> Fetched<Value>) throws(CLIError) -> Fetched<Value> {
        let reading = try reading()
        do {
            let fetched = try body(reading)
            warn(fetched.cacheProblems)
            return fetched
        } catch {
            throw failure(error)
        }
    }

    /// The server-side conversation actions for this profile and server.
    func conversationActions() throws(CLIError) -> ConversationActions {
        ConversationActions(profile: profile, api: try api(), me: userIdIfKnown())
    }

    /// One conversation action, its cache problems warned about.
    func act<Value>(_ body: (ConversationActions) throws(APIError) -> Fetched<Value>) throws(CLIError) -> Value {
        let actions = try conversationActions()
        do {
            let fetched = try body(actions)
            warn(fetched.cacheProblems)
            return fetched.value
        } catch {
            throw failure(error)
        }
    }

    func warn(_ problems: [CacheProblem]) {
        for problem in problems { output.warn("\(problem)") }
    }

    /// Turns a read's failure into the usual error for this server.
    func failure(_ error: ReadError) -> CLIError {
        switch error {
        case .api(let error): return failure(error)
        case .store(let error): return CLIError(error)
        case .cacheCannotAnswer(let error): return CLIError(.unavailable, "\(error)")
        }
    }
}
