import NexusCore
import Testing

/// The identity rule both sides share (docs/protocol.md, "Emails and names").
struct IdentityRuleTests {
    @Test func emailsHaveOneForm() {
        #expect(Identity.normalizedEmail("  Bob@Example.COM\t") == "bob@example.com")
        // Decomposed é (e + U+0301) becomes the one precomposed character.
        #expect(Array(Identity.normalizedEmail("JOSE\u{301}@example.com").unicodeScalars) == Array("jos\u{E9}@example.com".unicodeScalars))
    }

    @Test(arguments: ["bob@example.com", "first.last+tag@sub.example.co.uk", "o'brien@example.com", "jos\u{E9}@b\u{FC}cher.example",
                      "user@localhost", "a_b-c@x-y.example", "\u{7528}\u{6237}@\u{4F8B}\u{5B50}.example"])
    func validEmails(_ email: String) {
        #expect(Identity.problem(withEmail: email) == nil)
    }

    @Test(arguments: ["", "bob", "bob@", "@example.com", "a@b@c", "bob @example.com", "bob@example.com\u{0}", "bob@example.com\u{200B}",
                      "b\u{2060}ob@example.com", "bob\u{AD}@example.com", "bob@example.com\u{1B}", "bob@example.com\u{7F}", "bob@exam\u{85}ple.com",
                      "bob\u{FE0F}@example.com", "bob@example.com\u{A0}", ".bob@example.com", "bob.@example.com", "b..ob@example.com",
                      "bob@example..com", "bob@-example.com", "bob@example-.com", "\"bob\"@example.com", "bob(x)@example.com", "bob@[127.0.0.1]",
                      "bob@exa_mple.com", "disabled:7@invalid"])
    func invalidEmails(_ email: String) {
        let problem = Identity.problem(withEmail: email)
        #expect(problem != nil)
        // The message never carries a refused character to the terminal.
        #expect(!(problem ?? "").unicodeScalars.contains { Identity.isForbidden($0, allowSpace: true) })
    }

    @Test func limitsOfLength() {
        #expect(Identity.problem(withEmail: String(repeating: "a", count: 64) + "@example.com") == nil)
        #expect(Identity.problem(withEmail: String(repeating: "a", count: 65) + "@example.com") != nil)
        #expect(Identity.problem(withEmail: "a@" + String(repeating: "b", count: 64) + ".com") != nil)
        #expect(Identity.problem(withEmail: "a@" + Array(repeating: String(repeating: "b", count: 60), count: 5).joined(separator: ".")) != nil)
    }

    @Test func namesTakeSpacesAndEmojiButNoControlOrInvisibleCharacter() {
        for name in ["Bob Smith", "Jos\u{E9}", "\u{2764}\u{FE0F} ops", "\u{41F}\u{451}\u{442}\u{440}"] {
            #expect(Identity.problem(withName: name) == nil, "\(name)")
        }
        for name in ["Bob\u{1B}[2J", "Bob\u{0}", "Bob\u{200B}", "Bob\nSmith", "Bob\tSmith", "Bob\u{202E}", "Bob\u{2028}", "Bob\u{A0}Smith", "\u{3164}"] {
            #expect(Identity.problem(withName: name) != nil, "\(Identity.visible(name))")
        }
        #expect(Identity.problem(withName: String(repeating: "a", count: 101)) != nil)
        #expect(Identity.problem(withName: String(repeating: "a", count: 101), checkLength: false) == nil)
        #expect(Identity.visible("Bob\u{1B}[2J\u{0}") == "Bob<ESC>[2J<NUL>")
    }

    /// Limits.problem(withEmail:) is the rule applied to what a user typed.
    @Test func limitsApplyTheRuleToTypedInput() {
        #expect(Limits.problem(withEmail: " Bob@Example.com ") == nil)
        #expect(Limits.problem(withEmail: "bob@example.com\u{200B}")?.contains("U+200B") == true)
    }
}
