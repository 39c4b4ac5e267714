import Foundation
import Testing

/// docs/json.md against what the real nexusctl emits and what its --fields accepts: every
/// documented field of a Message (and of tail's other lines) can be picked, every key a
/// Message carries is documented, and the documented defaults are the real ones.
@Suite(.harness)
struct DocJSONFieldsTests {
    static let jsonDoc: String = (try? String(contentsOfFile: Binaries.root + "/docs/json.md", encoding: .utf8)) ?? ""

    /// The top-level field names of the shape `- **NAME** …: { a: …, b?: … }` in docs/json.md.
    static func fields(ofShape name: String) throws -> [String] {
        let start = try #require(jsonDoc.range(of: "- **\(name)**"), "docs/json.md has no shape \(name)")
        let rest = jsonDoc[start.upperBound...]
        let open = try #require(rest.firstIndex(of: "{"))
        var depth = 0, names: [String] = [], word = "", expectingName = false
        for c in rest[open...] {
            switch c {
            case "{", "[", "(":
                depth += 1
                if depth == 1 { expectingName = true }
            case "}", "]", ")":
                depth -= 1
            case ",":
                if depth == 1 { expectingName = true; word = "" }
            default:
                guard depth == 1, expectingName else { continue }
                if c.isLetter { word.append(c) } else if c == ":" || c == "?" {
                    if !word.isEmpty { names.append(word) }
                    expectingName = false
                    word = ""
                } else if c != " " && c != "\n" { expectingName = false; word = "" }
            }
            if depth == 0 && !names.isEmpty { break }
        }
        return names
    }

    func accepted(_ user: User, _ command: [String]) throws -> Set<String> {
        let r = try user.run(["help"] + command + ["--json"])
        let doc = try #require(try r.json() as? [String: Any])
        return Set(try #require(doc["jsonFields"] as? [String]))
    }

    @Test func everyDocumentedFieldIsAcceptedAndEveryEmittedOneDocumented() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let message = Set(try Self.fields(ofShape: "Message")).union(["membership"])
        #expect(message.isSuperset(of: ["ref", "replyTo", "editedAt", "reactions", "attachments", "text"]), "\(message)")
        var tailLines = message
        for shape in ["Change", "Receipt", "Typing", "Presence"] { tailLines.formUnion(try Self.fields(ofShape: shape)) }
        #expect(try accepted(alice, ["history"]) == message, "history --fields against docs/json.md's Message")
        #expect(try accepted(alice, ["tail"]) == tailLines, "tail --fields against docs/json.md's tail lines")

        // A message with every optional part: a reply, an edit, a reaction, a file.
        let first = try alice.run(["send", bob.email, "first"])
        let c = try #require(first.out.split(separator: " ").last?.split(separator: "/").first.map(String.init), "\(first.out)")
        let file = try makeTempDir("fields") + "/notes.txt"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: file))
        for args in [["send", c, "--reply-to", "\(c)/1", "a reply"], ["send", c, "--file", file, "notes"], ["edit", "\(c)/2", "a reply, edited"], ["react", "\(c)/2", "👍"]] {
            let r = try alice.run(args)
            try #require(r.code == 0, "\(args): \(r.err)")
        }
        let page = try alice.run(["history", c, "--json"])
        let messages = try #require((try page.json() as? [String: Any])?["messages"] as? [[String: Any]])
        let emitted = Set(messages.flatMap(\.keys))
        #expect(emitted.isSuperset(of: ["ref", "replyTo", "editedAt", "reactions", "attachments"]), "\(emitted)")
        #expect(emitted.isSubset(of: message), "emitted but not documented: \(emitted.subtracting(message))")

        let picked = try alice.run(["history", c, "--fields", "ref,text"])
        #expect(picked.code == 0, "\(picked.err)")
        let rows = try #require((try picked.json() as? [String: Any])?["messages"] as? [[String: Any]])
        #expect(rows.allSatisfy { Set($0.keys) == ["ref", "text"] }, "\(rows)")
        let all = try alice.run(["history", c, "--fields", message.sorted().joined(separator: ",")])
        #expect(all.code == 0, "\(all.err)")
    }

    /// "the newest N messages (`-n`, default D)" in docs/json.md is tail's real default.
    @Test func theDocumentedDefaultOfTailNIsTheRealOne() throws {
        let said = try #require(Self.jsonDoc.firstMatch(of: /\(`-n`, default (\d+)\)/)?.1, "docs/json.md names no default for -n")
        let help = try User("nobody", server: "").run(["tail", "--help"]).out
        let line = try #require(help.split(separator: "\n").first { $0.contains("--lines") }, "\(help)")
        #expect(line.contains("default \(said)"), "docs/json.md says -n defaults to \(said); tail --help: \(line)")
    }
}
