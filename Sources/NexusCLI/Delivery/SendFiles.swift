import NexusCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `send --file`: one message with files and an optional caption. Every file is measured
/// (size, SHA-256) before anything is queued, so a bad path queues nothing.
enum SendFiles {
    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let target = context.arguments[0]
        let paths = context.invocation[SendCommand.file]
        let words = Array(context.arguments.dropFirst())
        if context.invocation[SendCommand.eachLine] { throw .usage("--each-line and --file don't go together; send the files on their own") }
        if words == ["-"] { throw .usage("with --file the caption is given as words, not read from stdin") }
        guard paths.count <= Limits.maxAttachments else {
            throw .usage("a message takes at most \(Limits.maxAttachments) files; send the rest in another message")
        }
        if paths.filter({ $0 == "-" }).count > 1 { throw .usage("stdin can be only one file: give --file - once") }
        let name = context.invocation[SendCommand.name]
        if paths.contains("-") && name == nil { throw .usage("--file - needs --name NAME: the name the others see for the file") }
        if !paths.contains("-") && name != nil { throw .usage("--name names the file of --file -; give --file - too") }
        let caption = words.joined(separator: " ")
        if !caption.isEmpty, let problem = Limits.problem(withText: caption) { throw .badText(problem) }
        let conversationId = try Conversations.localId(for: target, profile: context.profile)
        var sending = try OutboxSending.sending(context)

        var files: [OutboxFile] = []
        for path in paths {
            files.append(try measure(path, name: name, sending: sending, context))
        }
        try checkSizes(files, paths, context)
        var bar: ProgressBar?
        var current = ""
        if context.terminal.errorIsTerminal && !context.output.quiet {
            sending.onUpload = { file, done in
                if current != file.sha256 + file.name {
                    bar?.finish()
                    current = file.sha256 + file.name
                    bar = ProgressBar(context.terminal, label: "📎 \(file.name)")
                }
                bar?.update(done, of: file.size)
            }
        }
        let mine: [OutboxEntry]
        let outcome: Sending.Outcome
        do {
            (mine, outcome) = try sending.send(caption, files: files, conversationId: conversationId, to: target, lock: OutboxSending.waitingLock(context, what: "the message"))
        } catch {
            throw CLIError(error)
        }
        bar?.finish()
        return try SendCommand.finish(mine, outcome, context)
    }

    /// A file over the server's attachment limit (as it last stated it) is a usage error:
    /// nothing is queued, as the server would refuse it at upload time anyway.
    private static func checkSizes(_ files: [OutboxFile], _ paths: [String], _ context: CommandContext) throws(CLIError) {
        guard let limit = context.profile.loadMaxAttachment(),
              let (file, path) = zip(files, paths).first(where: { $0.0.size > limit })
        else { return }
        for f in files where f.spooled == true { unlink(f.path) }
        throw .usage(
            "\(path == "-" ? "stdin" : path) is \(file.size) bytes (\(human(file.size))); the server takes attachments of at most \(limit) bytes (\(human(limit)))",
            hint: "send a smaller file (split or compress it), or ask the server's operator to raise `nexusd --max-attachment`.")
    }

    /// 1536 → "1.5 KiB", 104857600 → "100.0 MiB".
    static func human(_ bytes: Int64) -> String {
        var value = Double(bytes)
        var unit = 0
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard unit > 0 else { return "\(bytes) bytes" }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// The outbox's record of one file: an absolute path (a flush may run elsewhere), its
    /// size and SHA-256 now. stdin is first copied into the profile's folder.
    private static func measure(_ path: String, name: String?, sending: Sending, _ context: CommandContext) throws(CLIError) -> OutboxFile {
        let file: OutboxFile
        if path == "-" {
            do {
                let spooled = try LocalFile.spool(from: 0, into: sending.spoolFolder)
                file = OutboxFile(
                    path: spooled.path, name: name ?? "stdin", size: spooled.size, sha256: spooled.sha256,
                    type: LocalFile.mediaType(forName: name ?? ""), spooled: true)
            } catch {
                throw CLIError(error)
            }
        } else {
            let absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
            let base = String(absolute.split(separator: "/").last ?? "file")
            let bar = ProgressBar.make(context, label: "hashing \(base)")
            let measured: (size: Int64, sha256: String)
            do {
                var st = stat()
                let total = stat(absolute, &st) == 0 ? Int64(st.st_size) : 0
                measured = try LocalFile.measure(absolute, onProgress: total < 64 << 20 ? nil : { bar?.update($0, of: total) })
            } catch {
                throw .usage("can't attach \(path): \(error.reason)")
            }
            bar?.finish()
            file = OutboxFile(path: absolute, name: base, size: measured.size, sha256: measured.sha256, type: LocalFile.mediaType(forName: base))
        }
        if let problem = Limits.problem(withAttachment: file.attachment) { throw .usage("can't attach \(path): \(problem)") }
        return file
    }

    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(cBuffer: buffer)
    }
}
