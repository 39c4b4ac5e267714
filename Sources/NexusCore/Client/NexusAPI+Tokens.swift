/// Access tokens and bots (docs/tokens.md); a session from login manages them.
extension NexusAPI {
    public func createToken(_ request: CreateTokenRequest) throws(APIError) -> CreatedToken {
        try call("POST", "/v1/tokens", body: request)
    }

    public func tokens() throws(APIError) -> [AccessToken] {
        let r: TokensResponse = try call("GET", "/v1/tokens")
        return r.tokens
    }

    public func revokeToken(name: String) throws(APIError) {
        _ = try raw("DELETE", "/v1/tokens/" + percentEncode(name), body: nil)
    }

    public func createBot(_ request: CreateBotRequest) throws(APIError) -> CreatedToken {
        try call("POST", "/v1/bots", body: request)
    }

    public func bots() throws(APIError) -> [Bot] {
        let r: BotsResponse = try call("GET", "/v1/bots")
        return r.bots
    }

    public func deleteBot(name: String) throws(APIError) {
        _ = try raw("DELETE", "/v1/bots/" + percentEncode(name), body: nil)
    }
}
