/// Lanczos3 resizing to a size, a scale or a box, with Pillow's resampling convention.
public struct Resize: Filter {
    public enum Fit: String, CaseIterable, Sendable {
        /// The largest size that fits in the box, keeping the aspect ratio.
        case contain
        /// The smallest size that covers the box, keeping the aspect ratio; then the box's
        /// size of it is kept, at `position` (the middle by default).
        case cover
        /// Exactly the box, changing the aspect ratio.
        case fill
    }

    public var width: Int?
    public var height: Int?
    public var scale: Double?
    /// How width and height together are met; contain when left out.
    public var fit: Fit?
    public var enlarge = true
    public var fast = false
    /// With cover: where the kept box sits in the room left over, as fractions: [0.5, 0.5]
    /// the middle, [0, 0] the top left, [1, 1] the bottom right.
    public var position = ImagePoint(0.5, 0.5)

    public init() {}

    public init(width: Int? = nil, height: Int? = nil, scale: Double? = nil, fit: Fit? = nil,
                enlarge: Bool = true, fast: Bool = false, position: ImagePoint = ImagePoint(0.5, 0.5)) {
        self.position = position
        self.width = width
        self.height = height
        self.scale = scale
        self.fit = fit
        self.enlarge = enlarge
        self.fast = fast
    }

    public static let declaration = FilterDeclaration<Resize>(
        type: "resize",
        group: .geometry,
        summary: "Lanczos3 resize to a width, a height, a box (contain, cover, fill) or a scale.",
        documentation: """
            Give `width`, `height` or both, or `scale` alone; `fit` only with both width and
            height. With round(v) = floor(v + 0.5), computed exactly in integers (round(h W / w)
            is floor((2 h W + w) / (2 w))), an image of w x h becomes:

                scale s            round(w s) x round(h s)
                width W            W x round(h W / w)
                height H           round(w H / h) x H
                W, H, fill         W x H
                W, H, contain      s = min(W / w, H / h); the side that sets s is exact, the other round(side s)
                W, H, cover        s = max(W / w, H / h), resized as contain does; then W x H of it,
                                   from floor((rw - W) px), floor((rh - H) py)

            where [px, py] is `position` (cover only): where the box sits in the room left over,
            [0.5, 0.5] the middle (the default), [0, 0] the top left, [1, 1] the bottom right.

            Every side is at least 1. With `enlarge: false` a resize whose s is 1 or more leaves
            the size unchanged (cover still crops min(W, w) x min(H, h), at `position`; fill caps each
            side at the image's own).

            The kernel is Lanczos3, separable, with Pillow's convention (as
            `Image.resize(LANCZOS, reducing_gap=None)`): along an axis from n_in to n_out samples,
            scale = n_in / n_out, f = max(scale, 1), support = 3 f; output sample i has centre
            c = (i + 0.5) scale and takes input samples j from max(trunc(c - support + 0.5), 0) to
            min(trunc(c + support + 0.5), n_in) - 1, weighted

                L((j - c + 0.5) / f),   L(x) = sinc(x) sinc(x / 3) on -3 <= x < 3, else 0,

            normalised to sum 1; taps beyond the edges are dropped. It works on premultiplied
            colour and alpha; alpha is clamped to [0, 1] before colour is divided by it (the
            lobes overshoot); colour is not clamped. In a linear chain it runs in linear light:
            the gamma-correct downscale.

            `fast: true` allows shrink-on-load, an approximation: when this resize is the
            chain's first enabled step, nothing is previewed before it and the working space is
            srgb, a JPEG is decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling), the
            largest reduction that keeps at least twice the resized size (before a cover crop) on
            both axes, and the Lanczos3 resize works from there. Measured at 40 dB PSNR or more
            against the exact result on photographs. A HEIC, which libheif decodes whole, is
            reduced as much by averaging blocks of 2 x 2, 4 x 4 or 8 x 8 pixels.
            """,
        parameters: [
            .optionalInteger("width", \.width, in: 1...65535, help: "the width in pixels").measured(in: .pixels),
            .optionalInteger("height", \.height, in: 1...65535, help: "the height in pixels").measured(in: .pixels),
            .optionalNumber("scale", \.scale, in: 0.001...16, help: "both sides times this, instead of width and height"),
            .optionalChoice("fit", \.fit, help: "with width and height: contain (default), cover or fill"),
            .boolean("enlarge", \.enlarge, help: "false: never make the image larger"),
            .boolean("fast", \.fast, help: "allow shrink-on-load when decoding a JPEG or HEIC (an approximation)"),
            .point("position", \.position, in: 0...1,
                   help: "with fit cover: where the box sits in what is cut, as fractions [x, y]; [0.5, 0.5] the middle"),
        ],
        check: { r in
            let allowed = "give width, height or both (fit only with both), or scale alone"
            if r.scale != nil {
                if r.width != nil || r.height != nil || r.fit != nil {
                    let others = [r.width.map { _ in "width" }, r.height.map { _ in "height" }, r.fit.map { _ in "fit" }]
                        .compactMap { $0 }.joined(separator: " and ")
                    return "scale cannot be given with \(others); \(allowed)"
                }
                return nil
            }
            if r.width == nil && r.height == nil { return "no size given; \(allowed)" }
            if r.fit != nil && (r.width == nil || r.height == nil) {
                return "fit needs both width and height; \(allowed)"
            }
            if r.position != ImagePoint(0.5, 0.5) && r.fit != .cover {
                return "position places the box of fit cover; give fit \"cover\" with it"
            }
            return nil
        })

    public func operation() -> FilterOperation { .geometry(self) }

    public var keepsNeutralNeutral: Bool { true }
}

extension Resize: GeometryKernel {
    public var allowsShrinkOnLoad: Bool { fast }

    /// round(n a / b) = floor((2 n a + b) / (2 b)), at least 1.
    static func scaled(_ n: Int, _ a: Int, _ b: Int) -> Int { max(1, (2 * n * a + b) / (2 * b)) }

    public func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout {
        let w = size.width, h = size.height
        let whole = PixelRect(x: 0, y: 0, width: w, height: h)
        func resample(_ rw: Int, _ rh: Int) -> GeometryLayout {
            .resample(to: ImageSize(width: rw, height: rh), window: PixelRect(x: 0, y: 0, width: rw, height: rh))
        }
        if let s = scale {
            if !enlarge && s >= 1 { return .crop(whole) }
            return resample(max(1, Int((Double(w) * s + 0.5).rounded(.down))),
                            max(1, Int((Double(h) * s + 0.5).rounded(.down))))
        }
        switch (width, height) {
        case (let W?, nil):
            if !enlarge && W >= w { return .crop(whole) }
            return resample(W, Resize.scaled(h, W, w))
        case (nil, let H?):
            if !enlarge && H >= h { return .crop(whole) }
            return resample(Resize.scaled(w, H, h), H)
        case (let W?, let H?):
            // W / w <= H / h, exactly: the width sets s for contain, the height for cover.
            let widthIsTighter = W * h <= H * w
            switch fit ?? .contain {
            case .fill:
                if !enlarge { return W >= w && H >= h ? .crop(whole) : resample(min(W, w), min(H, h)) }
                return resample(W, H)
            case .contain:
                let (rw, rh) = widthIsTighter ? (W, Resize.scaled(h, W, w)) : (Resize.scaled(w, H, h), H)
                if !enlarge && (widthIsTighter ? W >= w : H >= h) { return .crop(whole) }
                return resample(rw, rh)
            case .cover:
                // floor(room p): exact for the middle (room / 2 in integers).
                func offset(_ room: Int, _ p: Double) -> Int { min(room, Int((Double(room) * p).rounded(.down))) }
                if !enlarge && (widthIsTighter ? H >= h : W >= w) {
                    let cw = min(W, w), ch = min(H, h)
                    return .crop(PixelRect(x: offset(w - cw, position.x), y: offset(h - ch, position.y), width: cw, height: ch))
                }
                let (rw, rh) = widthIsTighter ? (Resize.scaled(w, H, h), H) : (W, Resize.scaled(h, W, w))
                let cw = min(W, rw), ch = min(H, rh)
                return .resample(to: ImageSize(width: rw, height: rh),
                                 window: PixelRect(x: offset(rw - cw, position.x), y: offset(rh - ch, position.y), width: cw, height: ch))
            }
        case (nil, nil):
            throw GeometryError("resize: no size given")
        }
    }
}
