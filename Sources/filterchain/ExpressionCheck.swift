import FilterChain

/// `validate`'s look at a chain's expressions: every one evaluated for sources of some sizes,
/// every problem kept (not only the first), each with the size it was found for.
struct ExpressionCheck {
    /// The sizes checked without --size: a small web image, 2 MP, and a 24 MP photograph
    /// either way up.
    static let defaultSizes = [ImageSize(width: 640, height: 480), ImageSize(width: 1600, height: 1200),
                               ImageSize(width: 6000, height: 4000), ImageSize(width: 4000, height: 6000)]

    let file: String
    let sizes: [ImageSize]
    let checks: Bool
    /// Each problem, with the source size it was found for.
    private(set) var errors: [(size: ImageSize, error: ChainError)] = []

    init(chain: Chain, file: String, sizes: [ImageSize]) {
        self.file = file
        self.sizes = sizes
        checks = chain.steps.contains { !$0.computed.isEmpty }
        guard checks else { return }
        var seen: Set<String> = []
        for size in sizes {
            for error in chain.expressionErrors(sourceSize: size, file: file) where seen.insert(error.description).inserted {
                errors.append((size, error))
            }
        }
    }

    /// "6000x4000", or nil.
    static func size(_ text: String) -> ImageSize? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 1, h >= 1, w <= 1 << 20, h <= 1 << 20 else { return nil }
        return ImageSize(width: w, height: h)
    }

    /// "; expressions checked for sources of 640x480, ..." after "valid".
    var summary: String {
        checks ? "; expressions checked for sources of " + listText(sizes.map(\.description)) : ""
    }

    func describe(into line: inout JSONLine) {
        if checks { line.addRaw("sizes", "[" + sizes.map { JSONWriter.quote($0.description) }.joined(separator: ",") + "]") }
    }

    /// Prints every problem (stderr) or the JSON line with all of them; the first is the line's `error`.
    func report(into line: inout JSONLine, json: Bool) {
        let first = errors[0].error
        line.add("valid", false)
        line.add("error", first.message)
        line.add("path", first.path.isEmpty ? nil : first.path)
        line.add("line", first.line)
        line.add("column", first.column)
        describe(into: &line)
        let all = errors.map { size, error in
            var item = JSONLine()
            item.add("size", size.description)
            item.add("error", error.message)
            item.add("path", error.path.isEmpty ? nil : error.path)
            item.add("line", error.line)
            item.add("column", error.column)
            return item.text
        }
        line.addRaw("errors", "[" + all.joined(separator: ",") + "]")
        if json {
            Console.output(line.text)
        } else {
            for (size, error) in errors {
                var shown = error
                shown.file = "\(file): for a \(size) source"
                Console.error(shown.description)
            }
        }
    }
}
