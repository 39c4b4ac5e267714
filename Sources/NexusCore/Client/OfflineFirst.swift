/// An offline-first read: the cache when it can answer alone, else the server (keeping
/// what it answers), else, when the server can't be reached, the cache's best answer
/// with the reason. Every read command follows this one policy; see `Reading`.
public struct OfflineFirst<Value> {
    /// A complete answer from the cache alone, or nil when the server must be asked.
    public var cached: () throws(StoreError) -> Value?
    public var server: () throws(APIError) -> Value
    /// Keeps what the server answered, for later reads offline.
    public var remember: (Value) throws(StoreError) -> Void
    /// The cache's answer when the server can't be reached; `.cacheCannotAnswer` when it has none.
    public var fallback: (APIError) throws(ReadError) -> Value
    /// The cache's answer when the server says the caller is not a member (404 `not_found`):
    /// someone removed from a group keeps what they had read. Nil: the 404 is the answer.
    public var formerMember: ((APIError) throws(ReadError) -> Value)?

    public init(
        cached: @escaping () throws(StoreError) -> Value? = { nil },
        server: @escaping () throws(APIError) -> Value,
        remember: @escaping (Value) throws(StoreError) -> Void,
        fallback: @escaping (APIError) throws(ReadError) -> Value,
        formerMember: ((APIError) throws(ReadError) -> Value)? = nil
    ) {
        self.cached = cached
        self.server = server
        self.remember = remember
        self.fallback = fallback
        self.formerMember = formerMember
    }

    /// Only a network failure turns to the cache: a refusal by the server is an answer.
    public func read() throws(ReadError) -> Fetched<Value> {
        var problems: [CacheProblem] = []
        do {
            if let value = try cached() { return Fetched(value: value, source: .cache) }
        } catch {
            problems.append(.read(error))
        }
        let value: Value
        do {
            value = try server()
        } catch {
            guard error.isNetwork else {
                guard case .server(404, "not_found", _, _) = error, let formerMember else { throw .api(error) }
                return Fetched(value: try formerMember(error), source: .notAMember(reason: error), cacheProblems: problems)
            }
            return Fetched(value: try fallback(error), source: .offline(reason: error), cacheProblems: problems)
        }
        do { try remember(value) } catch { problems.append(.write(error)) }
        return Fetched(value: value, source: .server, cacheProblems: problems)
    }
}

/// A value from an offline-first read, and where it came from.
public struct Fetched<Value> {
    public var value: Value
    public var source: ReadSource
    /// The cache failed on the way; the value is good, the cache may lag.
    public var cacheProblems: [CacheProblem] = []

    public init(value: Value, source: ReadSource, cacheProblems: [CacheProblem] = []) {
        self.value = value
        self.source = source
        self.cacheProblems = cacheProblems
    }

    public var fromServer: Bool {
        if case .server = source { return true }
        return false
    }

    /// Why the value comes from the cache, when the server could not be reached.
    public var offlineReason: APIError? {
        if case .offline(let reason) = source { return reason }
        return nil
    }

    /// True when the value is the cache's because the caller is no longer a member.
    public var fromFormerMembership: Bool {
        if case .notAMember = source { return true }
        return false
    }

    public func map<T>(_ transform: (Value) -> T) -> Fetched<T> {
        Fetched<T>(value: transform(value), source: source, cacheProblems: cacheProblems)
    }
}

/// Where an offline-first read's value came from.
public enum ReadSource {
    /// The cache held the whole answer; the server was not asked.
    case cache
    case server
    /// The server could not be reached; the value is the cache's.
    case offline(reason: APIError)
    /// The server answered 404: the caller is not a member (removed, or left); the value is
    /// what the cache kept from when they were.
    case notAMember(reason: APIError)
}

/// A cache that could not be read or written: worth a warning, never the read.
public enum CacheProblem: Error, Equatable, CustomStringConvertible {
    case read(StoreError)
    case write(StoreError)

    public var description: String {
        switch self {
        case .read(let error): return "could not read the local cache: \(error)"
        case .write(let error): return "could not update the local cache: \(error)"
        }
    }
}

public enum ReadError: Error {
    /// The server answered with a refusal, or could not be understood.
    case api(APIError)
    /// The cache could not be read when it was the only source.
    case store(StoreError)
    /// The server can't be reached and the cache can't answer this question.
    case cacheCannotAnswer(APIError)
}
