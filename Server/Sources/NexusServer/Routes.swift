import Hummingbird

/// Every route of /v1 on one page, grouped by what it serves (docs/openapi.yaml describes
/// each). The handlers are the controllers': HTTP adapters over the use cases.
func addRoutes(to v1: RouterGroup<AppRequestContext>, services: AppServices) {
    let stores = services.stores
    let auth = AuthController(users: stores.users, services: services)
    v1.post("register", use: auth.register)
    v1.post("login", use: auth.login)
    v1.post("hooks/in/:secret", use: IncomingHookController(services: services).post)

    // Every route from here on needs a login.
    let group = v1.group().add(middleware: AuthenticationMiddleware(services: services))
    group.post("logout", use: auth.logout)
    group.get("me", use: auth.me)
    let account = AccountController(users: stores.users, services: services)
    group.patch("me", use: account.updateProfile)
    group.post("me/password", use: account.changePassword)
    let picture = PictureController(users: stores.users, attachments: stores.attachments, services: services)
    group.put("me/picture", use: picture.set)
    group.delete("me/picture", use: picture.remove)
    group.get("users/:id/picture", use: picture.download)
    group.get("users", use: UsersController(users: stores.users, services: services).list)

    let conversations = ConversationsController(conversations: stores.conversations, services: services)
    group.post("conversations", use: conversations.create)
    group.get("conversations", use: conversations.list)
    group.get("conversations/:id", use: conversations.show)
    let members = MembersController(services: services)
    group.get("conversations/:id/members", use: members.list)
    group.post("conversations/:id/members", use: members.add)
    group.post("conversations/:id/members/remove", use: members.remove)
    group.post("conversations/:id/leave", use: members.leave)
    group.post("conversations/:id/rename", use: members.rename)
    let mutes = MuteController(services: services)
    group.put("conversations/:id/mute", use: mutes.mute)
    group.delete("conversations/:id/mute", use: mutes.unmute)

    let messages = MessagesController(messages: stores.messages, services: services)
    group.post("conversations/:id/messages", use: messages.send)
    group.get("conversations/:id/messages", use: messages.list)
    group.post("messages/batch", use: messages.batch)
    group.post("messages/changes", use: ChangesController(services: services).apply)
    let receipts = ReceiptsController(receipts: stores.receipts, messages: stores.messages, services: services)
    group.post("conversations/:id/receipts", use: receipts.receipts)
    group.post("conversations/:id/typing", use: receipts.typing)
    group.get("messages/:id/status", use: receipts.status)
    group.get("messages/status", use: receipts.statusByLocalId)
    group.get("sync", use: SyncController(feed: stores.feed, services: services).sync)
    group.delete("presence/:client", use: PresenceController(services: services).leave)
    group.get("search", use: SearchController(search: stores.search, services: services).find)

    let attachments = AttachmentsController(
        store: stores.attachments, messages: stores.messages, services: services, tracker: UploadTracker())
    group.post("uploads", use: attachments.begin)
    group.get("uploads/:sha256", use: attachments.state)
    group.patch("uploads/:sha256", use: attachments.append)
    group.get("conversations/:id/messages/:seq/attachments/:index", use: attachments.download)

    let tokens = TokensController(tokens: stores.tokens, services: services)
    group.post("tokens", use: tokens.createToken)
    group.get("tokens", use: tokens.listTokens)
    group.delete("tokens/:name", use: tokens.revokeToken)
    group.post("bots", use: tokens.createBot)
    group.get("bots", use: tokens.listBots)
    group.delete("bots/:name", use: tokens.deleteBot)
    let hooks = HooksController(hooks: stores.hooks, services: services)
    group.post("hooks", use: hooks.create)
    group.get("hooks", use: hooks.list)
    group.delete("hooks/:name", use: hooks.revoke)
    group.get("hooks/:name/deliveries", use: hooks.deliveries)
}
