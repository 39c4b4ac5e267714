import Foundation
import NexusCore
import Testing

/// Shell completion from what the profile knows: conversations said what they are, every
/// known person by email, recent messages for the commands that take one, and options
/// without their --no- twins.
@Suite(.harness)
struct CompletionTests {
    @Test func completionOffersNamesAndSaysWhatANumberIs() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let group = try alice.run(["new", bob.email, carol.email, "--name", "Launch", "--json"]).decode(ConversationResponse.self).conversation.id
        let sent = try alice.run(["send", "\(group)", "ship it at noon"])
        #expect(sent.code == 0, "\(sent.err)")
        #expect(try bob.run(["send", "\(group)", "not mine"]).code == 0)
        #expect(try alice.run(["convos"]).code == 0)
        #expect(try alice.run(["history", "\(group)"]).code == 0)

        // Carol shares only the group: she is offered too, by email.
        let plain = try alice.run(["__complete", "send", ""]).out.split(separator: "\n").map(String.init)
        #expect(plain.contains("\(group)") && plain.contains(bob.email) && plain.contains(carol.email), "\(plain)")
        let described = try alice.run(["__complete", "--described", "send", ""]).out
        #expect(described.contains("\(group)\tLaunch (group)\n") && described.contains("\(carol.email)\tCarol\n"), "\(described)")

        let options = try alice.run(["__complete", "send", "--"]).out
        #expect(options.contains("--reply-to\n") && !options.contains("--no-"), "\(options)")
        #expect(try alice.run(["__complete", "send", "--no-"]).out.split(separator: "\n").allSatisfy { $0.hasPrefix("--no-") })

        // edit offers my own messages by name, not files; react anyone's.
        let edit = try alice.run(["__complete", "--described", "edit", ""]).out
        #expect(edit.contains("\(group)/") && edit.contains("\tship it at noon\n") && !edit.contains("not mine"), "\(edit)")
        #expect(try alice.run(["__complete", "--described", "react", ""]).out.contains("\tnot mine\n"))

        // The bash script, for real: what a <Tab> after `send` fills in.
        let script = "source <(\(Binaries.nexusctl) completion bash); nexusctl() { \(Binaries.nexusctl) \"$@\"; }; COMP_WORDS=(nexusctl send c); COMP_CWORD=2; _nexusctl; printf '%s\\n' \"${COMPREPLY[@]}\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = alice.environment
        let tab = try runToEnd(process)
        #expect(tab.out == carol.email + "\n", "\(tab.out) \(tab.err)")
    }
}
