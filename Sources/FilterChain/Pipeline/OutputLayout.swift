/// What an output does with the image: the layout it stores and how it gets there.
public struct OutputLayout: Sendable, Hashable {
    public var format: PixelFormat
    /// JPEG has no alpha: colour is composited over this background.
    public var background: RGBColor?

    /// The layout of an output of `format` for an image read as `input`: PNG keeps the
    /// depth (unless `depth` says otherwise) and alpha; JPEG is 8-bit without alpha; grey
    /// input stays grey when `neutral` (every output pixel has R = G = B).
    public static func resolve(input: PixelFormat, output: ImageFormat?, depth: BitDepth?,
                               background: RGBColor, neutral: Bool) -> OutputLayout {
        let grey = input.channels.isGrey && neutral
        switch output {
        case .jpeg:
            return OutputLayout(format: PixelFormat(Channels(grey: grey, alpha: false), .eight),
                                background: input.channels.hasAlpha ? background : nil)
        case .png, nil:
            return OutputLayout(format: PixelFormat(Channels(grey: grey, alpha: input.channels.hasAlpha),
                                                    depth ?? input.depth), background: nil)
        }
    }
}
