import Foundation
import Testing
@testable import FilterChain

/// The chain file's JSON reader, against Foundation's parser as the oracle for values and
/// against positions counted by hand for errors.
@Suite struct JSONParserTests {
    /// The parsed tree as Foundation objects, to compare with JSONSerialization's reading.
    static func plain(_ node: JSONNode) -> Any {
        switch node.value {
        case .null: NSNull()
        case .bool(let b): b
        case .number(let d): d
        case .string(let s): s
        case .array(let items): items.map(plain)
        case .object(let members): Dictionary(uniqueKeysWithValues: members.map { ($0.key, plain($0.value)) })
        }
    }

    static let validDocuments = [
        #"{"a": [1, -2.5, 3e2, 0.125E-1, 1.7976931348623157e308], "b": {"c": null, "d": true, "e": false}}"#,
        #"["\u00e9\ud83d\ude00", "tab\tquote\"slash\/back\\", "\u0041\u000a", "ünïcödé", ""]"#,
        #"  [ [ [ ] ] , { } , -0 , 5e-324 ]  "#,
    ]

    @Test(arguments: validDocuments)
    func valuesMatchFoundation(_ text: String) throws {
        let ours = Self.plain(try JSONParser.parse(Array(text.utf8)))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(NSDictionary(dictionary: ["v": ours]).isEqual(to: ["v": theirs]), "\(ours) != \(theirs)")
    }

    @Test func nodesRememberWhereTheyWereWritten() throws {
        let text = "{\n  \"a\": [1,\n    true],\n\t\"b\": \"x\"\n}"
        let root = try JSONParser.parse(Array(text.utf8))
        guard case .object(let members) = root.value, case .array(let items) = members[0].value.value else {
            Issue.record("not an object with an array"); return
        }
        #expect((root.line, root.column) == (1, 1))
        #expect((members[0].value.line, members[0].value.column) == (2, 8))
        #expect((items[1].line, items[1].column) == (3, 5))
        #expect((members[1].value.line, members[1].value.column) == (4, 7))
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let node = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(JSONWriter.compact(node) == "[1]")
        #expect(node.column == 1)
    }

    static let invalid: [(String, Int, Int, String)] = [
        (#"{"a": 1, "a": 2}"#, 1, 10, "duplicate"),
        ("[1, 2,]", 1, 7, "trailing comma before ']'"),
        (#"{"a": 1,}"#, 1, 9, "trailing comma before '}'"),
        ("[01]", 1, 3, "leading zero"),
        ("[1.]", 1, 4, "digits expected after '.'"),
        ("[1e]", 1, 4, "digits expected in the exponent"),
        ("[1e999]", 1, 2, "too large"),
        ("// no\n[]", 1, 1, "expected a value"),
        ("[\"a\nb\"]", 1, 4, "control character"),
        (#"["\ud800"]"#, 1, 9, "unpaired surrogate"),
        (#"["\x"]"#, 1, 4, "invalid escape"),
        ("[1] [2]", 1, 5, "after the end of the document"),
        ("[", 1, 2, "unexpected end of file"),
        ("", 1, 1, "unexpected end of file"),
        ("[tru]", 1, 2, "unexpected 't', expected a value"),
        ("\n\n  {\"a\" 1}", 3, 8, "expected ':'"),
    ]

    @Test(arguments: invalid)
    func syntaxErrorsSayWhereAndWhat(_ test: (String, Int, Int, String)) throws {
        let (text, line, column, words) = test
        let error = try #require(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
        #expect((error.line, error.column) == (line, column), "\(text): \(error)")
        #expect(error.message.contains(words), "\(text): \(error.message)")
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8)) }
    }

    @Test func nestingIsLimited() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        _ = try JSONParser.parse(Array(fine.utf8))
    }

    @Test(arguments: validDocuments)
    func writtenTextReadsBackTheSame(_ text: String) throws {
        let node = try JSONParser.parse(Array(text.utf8))
        for written in [JSONWriter.pretty(node), JSONWriter.compact(node)] {
            let again = try JSONParser.parse(Array(written.utf8))
            #expect(NSDictionary(dictionary: ["v": Self.plain(again)]).isEqual(to: ["v": Self.plain(node)]), "\(written)")
        }
    }
}
