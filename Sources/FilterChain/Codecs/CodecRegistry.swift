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
