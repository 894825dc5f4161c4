/// What an output does with the image: the layout it stores and how it gets there.
package struct OutputLayout: Sendable, Hashable {
    public var format: PixelFormat
    /// For a format without alpha: colour is composited over this background.
    public var background: RGBColor?

    /// The layout of an output of `format` (nil: in memory, which holds everything) for an
    /// image read as `input`, from what the format can hold: the input's depth (unless
    /// `depth` says otherwise) where the format holds it, else the deepest it holds; alpha where the
    /// format holds it, else composited over `background`; grey when the input is grey,
    /// `neutral` (every output pixel has R = G = B) and the format holds grey.
    public static func resolve(input: PixelFormat, output: ImageFormat?, depth: BitDepth?,
                               background: RGBColor, neutral: Bool) -> OutputLayout {
        let caps = output?.capabilities
        let grey = input.channels.isGrey && neutral && caps?.grey != false
        let alpha = input.channels.hasAlpha && caps?.alpha != false
        var wanted = depth ?? input.depth
        if let caps, !caps.depths.contains(wanted) { wanted = caps.depths.max { $0.rawValue < $1.rawValue }! }
        return OutputLayout(format: PixelFormat(Channels(grey: grey, alpha: alpha), wanted),
                            background: input.channels.hasAlpha && !alpha ? background : nil)
    }
}
