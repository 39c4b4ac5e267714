import Testing

@testable import NexusCore

/// Error answers that are not nexusd's JSON (a proxy's HTML page) are said in a line.
struct ForeignErrorTests {
    @Test func aProxysPageIsToldByItsTitleAndA413NamesTheLimitToRaise() {
        let page = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n"
        let message = ForeignError.message(status: 413, body: Array(page.utf8))
        #expect(message.hasPrefix("the server answered 413 (Request Entity Too Large), not in nexusd's words"))
        #expect(message.contains("client_max_body_size 16m"))
        #expect(!message.contains("<"))
    }

    @Test func plainTextKeepsItsFirstLineAndAnEmptyBodyOnlyTheStatus() {
        #expect(ForeignError.message(status: 502, body: Array("Bad Gateway\nupstream down".utf8))
            == "the server answered 502 (Bad Gateway), not in nexusd's words: from a proxy in front of it, most likely")
        #expect(ForeignError.message(status: 404, body: []) == "the server answered 404")
    }

    @Test func htmlWithoutATitleIsLeftOut() {
        #expect(ForeignError.message(status: 500, body: Array("<html><body>oops</body></html>".utf8))
            == "the server answered 500, not in nexusd's words: from a proxy in front of it, most likely")
    }
}
