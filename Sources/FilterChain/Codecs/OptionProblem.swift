/// What is wrong with encode options taken together for a format ("quality is for lossy
/// WebP"), worded for whoever set them: a program names the settings as ``EncodeOptions``
/// holds them (`settings["quality"]`, `depth = .eight`), the command line names its flags
/// (`--quality`, `--depth 8`). `description` is the program's wording; the command-line
/// tool prints `commandLine`.
public struct OptionProblem: Sendable, Hashable, CustomStringConvertible {
    /// The text with each option written `{name}`, or `{name value}` for an option with a
    /// value (`{tiffCompression jpeg}`, `{depth 8}`).
    public let template: String

    public init(_ template: String) { self.template = template }

    /// As a program sets the options: `settings["quality"]`, `settings["tiffCompression"] =
    /// "jpeg"`, `depth = .eight`.
    public var description: String {
        spelled { name, value in
            if name == "depth" { return value.map { "depth = \($0 == "16" ? ".sixteen" : ".eight")" } ?? "depth" }
            let setting = "settings[\"\(name)\"]"
            guard let value else { return setting }
            return setting + " = " + (Int(value) != nil || value == "true" || value == "false" ? value : "\"\(value)\"")
        }
    }

    /// As the command line gives them: `--quality`, `--tiff-compression jpeg`, `--depth 8`.
    public var commandLine: String {
        commandLine { name, value in EncodeOption.flag(for: name) + (value.map { " " + $0 } ?? "") }
    }

    /// With each option as `spell(name, value)` writes it: a tool whose options are not all
    /// flags of their own (`--encode effort=3`).
    public func commandLine(_ spell: (_ name: String, _ value: String?) -> String) -> String {
        spelled(spell)
    }

    /// The template with each `{name value}` replaced by `spell(name, value)`.
    private func spelled(_ spell: (String, String?) -> String) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let words = rest[rest.index(after: open)..<close].split(separator: " ", maxSplits: 1).map(String.init)
            out += spell(words.first ?? "", words.count > 1 ? words[1] : nil)
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
