import LibC
import NexusCore

enum ProfileCommand {
    static let name = Value("name", "NAME", help: "the new display name")
    static let picture = Value("picture", "FILE", help: "make this image the account's picture")
    static let removePicture = Flag("remove-picture", help: "take the account's picture away")

    static let spec = CommandSpec(
        name: "profile", summary: "Show the account's name, email, registration and picture, or set them",
        usage: ["[--name NAME] [--picture FILE | --remove-picture]"],
        details: """
            Without options, shows the account as the server has it. With --name, sets the display name (the rule of
            register's --name); the people you share conversations with see it when their lists next refresh.
            --picture FILE makes an image (.png, .jpg, .gif, .webp, .svg) the account's picture: it is uploaded as
            attachments are (resumable, checked by its SHA-256, within the server's attachment limit) and kept as the
            account's. `users --json` and `whoami --json` give it as "picture": {"url", "name", "size", "type",
            "sha256"}, the url a path on the server that any of its users' tokens can GET. --remove-picture takes it
            away. Not the local profiles of --profile: `nexusctl profiles` lists those.
            """,
        options: [name, picture, removePicture],
        requirements: [.session],
        jsonFields: ["id", "email", "displayName", "createdAt", "picture"],
        examples: [
            ("nexusctl profile --name \"Alice Liddell\"", "change your display name"),
            ("nexusctl profile --picture me.png", "set your picture"),
        ],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        var name: String?
        if let given = context.invocation[Self.name] {
            let trimmed = given.trimmingSpaces()
            if trimmed.isEmpty { throw .usage("--name needs a display name", hint: "say what people should see, e.g. --name \"Alice Liddell\".") }
            if let problem = Identity.problem(withName: trimmed) { throw .usage(problem) }
            name = trimmed
        }
        let remove = context.invocation[removePicture]
        let picture = try context.invocation[Self.picture].map { path throws(CLIError) in try pictureFile(path) }
        if picture != nil && remove { throw .usage("give --picture FILE or --remove-picture, not both") }
        var user = try context.call { api throws(APIError) in
            if let name { return try api.setDisplayName(name) }
            return try api.me()
        }
        if name != nil { saveName(user, context) }
        if let picture {
            let api = try context.api()
            do throws(UploadFailure) {
                user = try api.setPicture(picture)
            } catch {
                switch error {
                case .file(let why): throw CLIError(.failure, why)
                case .api(let e): throw context.failure(e)
                }
            }
        } else if remove {
            user = try context.call { api throws(APIError) in try api.removePicture() }
        }
        if context.output.json {
            context.output.document(user)
        } else {
            context.output.line("\(user.shownName) <\(user.email)>")
            if let created = user.createdAt { context.output.line("registered: \(LocalTime.short(created))") }
            if let p = user.picture {
                context.output.line(
                    TerminalText("picture: \(p.name) (\(p.type), \(LocalFile.humanSize(p.size)), sha256 \(p.sha256.prefix(12))…) at \(p.url)"))
            } else {
                context.output.line("picture: none (set one with `nexusctl profile --picture FILE`)")
            }
        }
        return .ok
    }

    /// The image, measured and checked before anything is sent: a usage error sends nothing.
    private static func pictureFile(_ path: String) throws(CLIError) -> OutboxFile {
        var cwd = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let here = getcwd(&cwd, cwd.count) != nil ? String(cString: cwd) : "."
        let absolute = path.hasPrefix("/") ? path : here + "/" + path
        let base = String(absolute.split(separator: "/").last ?? "picture")
        let type = LocalFile.mediaType(forName: base)
        guard type.hasPrefix("image/") else {
            throw .usage("--picture takes an image; \(path) is not one by its name (\(type))", hint: "give a .png, .jpg, .gif, .webp or .svg file.")
        }
        let measured: (size: Int64, sha256: String)
        do { measured = try LocalFile.measure(absolute) } catch { throw .usage("can't read \(path): \(error.reason)") }
        let file = OutboxFile(path: absolute, name: base, size: measured.size, sha256: measured.sha256, type: type)
        if let problem = Limits.problem(withAttachment: file.attachment) { throw .usage("can't use \(path): \(problem)") }
        return file
    }

    /// The saved session's copy of the account, which whoami shows offline.
    private static func saveName(_ user: User, _ context: CommandContext) {
        guard !context.tokenFromEnvironment, var saved = try? context.profile.loadSession(), saved.user.id == user.id else { return }
        saved.user.displayName = user.displayName
        try? context.profile.saveSession(saved)
    }
}
