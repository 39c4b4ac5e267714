/// Webhooks (docs/webhooks.md).
extension NexusAPI {
    public func createHook(_ request: CreateHookRequest) throws(APIError) -> CreateHookResponse {
        try call("POST", "/v1/hooks", body: request)
    }

    public func hooks() throws(APIError) -> [Webhook] {
        let response: HooksResponse = try call("GET", "/v1/hooks")
        return response.hooks
    }

    public func revokeHook(named name: String) throws(APIError) -> Webhook {
        let response: [String: Webhook] = try call("DELETE", "/v1/hooks/" + percentEncode(name))
        guard let hook = response["hook"] else { throw .badResponse("the answer names no hook") }
        return hook
    }

    public func hookDeliveries(named name: String, limit: Int? = nil) throws(APIError) -> HookDeliveriesResponse {
        try call("GET", "/v1/hooks/" + percentEncode(name) + "/deliveries" + (limit.map { "?limit=\($0)" } ?? ""))
    }
}
