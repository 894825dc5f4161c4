/// Every file format filterchain reads or writes. Adding a format: its declaration (with its
/// decoder and encoder), plus one line here.
public enum CodecRegistry {
    public static let declarations: [FormatDeclaration] = [
        PNGCodec.declaration,
        JPEGCodec.declaration,
        WebPCodec.declaration,
        TIFFCodec.declaration,
        AVIFCodec.declaration,
        HEIFCodec.declaration,
        GIFCodec.declaration,
        JXLCodec.declaration,
        RAWCodec.declaration,
    ]

    /// The declaration of a registered format.
    public static func declaration(of format: ImageFormat) -> FormatDeclaration {
        guard let d = declarations.first(where: { $0.format == format }) else {
            preconditionFailure("\(format.id) is not a registered format")
        }
        return d
    }

    /// The formats filterchain reads, in the registry's order.
    public static var readable: [FormatDeclaration] { declarations.filter(\.reads) }
    /// The formats filterchain writes, in the registry's order.
    public static var writable: [FormatDeclaration] { declarations.filter(\.writes) }

    /// The formats whose encoders take the option `name`.
    public static func formats(taking name: String) -> [FormatDeclaration] {
        writable.filter { $0.option(named: name) != nil }
    }

    /// "PNG, JPEG and WebP".
    static func list(_ names: [String], and: String = "and") -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " \(and) " + names.last!
    }
}

extension CodecRegistry {
    /// Every encode option's name, each once, in the order the writable formats declare them.
    public static var optionNames: [String] {
        var names: [String] = []
        for d in writable { for o in d.options where !names.contains(o.name) { names.append(o.name) } }
        return names
    }

    /// The option a person who wrote `name` (a flag's name, `alpha-quality`, or the
    /// registry's, `alphaQuality`) meant: exactly, else a likely misspelling; nil when none.
    public static func option(named name: String) -> (name: String, exact: Bool)? {
        let names = optionNames
        if let exact = names.first(where: { $0 == name || EncodeOption.flag(for: $0) == "--" + name }) { return (exact, true) }
        let flags = names.map { String(EncodeOption.flag(for: $0).dropFirst(2)) }
        return closestMatch(name, in: flags).flatMap { flag in names.first { EncodeOption.flag(for: $0) == "--" + flag } }.map { ($0, false) }
    }
}
