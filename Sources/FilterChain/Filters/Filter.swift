/// A filter: a parameter struct that declares its parameters once (`declaration`) and says
/// what it does to pixels (`operation()`). It does not decide strips, threads or SIMD
/// width; the pipeline does, and results are identical for every schedule.
public protocol Filter: Sendable {
    /// The filter's type name, one-line summary, documentation and parameters.
    static var declaration: FilterDeclaration<Self> { get }
    /// Every parameter at its default.
    init()
    /// What the filter does with its current parameters.
    func operation() -> FilterOperation
    /// What it does in a chain whose working space is `space`: filters that weigh channels
    /// by luminance use the space's weights (`WorkingSpace.lumaWeights`). By default,
    /// `operation()`.
    func operation(in space: WorkingSpace) -> FilterOperation
    /// True when pixels with R = G = B keep R = G = B (so grey images can stay grey).
    var keepsNeutralNeutral: Bool { get }
    /// True when the filter may write alpha (an opaque image then gains an alpha channel).
    var changesAlpha: Bool { get }
    /// The filter as it should run on a copy of the image scaled by `scale` (a preview), so
    /// that the result looks like the full-size one scaled. By default every parameter
    /// declared in pixels (`ParameterUnit.pixels`) is scaled.
    func scaled(by scale: Double) -> Self
}

extension Filter {
    public func operation(in space: WorkingSpace) -> FilterOperation { operation() }
    public var type: String { Self.declaration.type }
    public var changesAlpha: Bool { false }
    /// The other images of the chain the filter reads besides its input, as its declaration
    /// says (its reference parameters: a blend's layer). The graph and the plan read these,
    /// never the filter's type.
    public var layerReferences: [Reference] { Self.declaration.references(of: self) }
}

/// What a filter does to pixels and how far it reaches.
public enum FilterOperation: Sendable {
    /// Leaves every pixel as it is.
    case identity
    /// Each output pixel depends on the same input pixel only; works on straight colour.
    case point(any PointKernel)
    /// Like `point`, with each pixel's position and the image's size; works on straight
    /// colour.
    case positional(any PositionalKernel)
    /// A separable neighbourhood operation (horizontal pass, then vertical pass) on
    /// premultiplied colour and alpha, reaching `radius` pixels.
    case separable(any SeparableKernel)
    /// A separable neighbourhood operation whose result is then combined, pixel by pixel,
    /// with the step's own input (both premultiplied): unsharp masking, high pass, ...
    case combine(any SeparableKernel, any CombineKernel)
    /// Changes the image's size or turns it: what each output pixel is made of, from the
    /// input's size.
    case geometry(any GeometryKernel)
    /// Lays another image of the chain (`layer`, placed by `placement`) over the step's input
    /// and combines them pixel by pixel, on straight colour.
    case blend(layer: Reference, placement: Placement, kernel: any LayerKernel)
}

/// Combines a layer with the image under it (the backdrop), pixel by pixel.
public protocol LayerKernel: Sendable {
    /// `backdrop` is the step's input and `layer` the layer's pixels at the same places (alpha
    /// 0 where the layer does not cover), both straight colour, `count` pixels (a multiple of
    /// 8, 32-byte aligned); writes the step's output into `backdrop`, alpha included.
    func blend(backdrop: PlanarPixels, layer: PlanarPixels, count: Int)
    /// What `blend` gives where the layer does not cover (its alpha is 0 at all `count`
    /// pixels), without a layer to read: the pipeline calls it for the parts of a row that
    /// the layer misses. The default blends with a transparent layer.
    func pass(backdrop: PlanarPixels, count: Int)
    /// True when the output's alpha may differ from 1 where the backdrop's is 1.
    var changesOpaqueAlpha: Bool { get }
    /// How much of the layer's alpha covers the backdrop (a blend's opacity): an HDR gain
    /// map's log gain under the layer is kept in the part the layer leaves (1 - coverage).
    var coverage: Float { get }
}

extension LayerKernel {
    public var coverage: Float { 1 }

    public func pass(backdrop: PlanarPixels, count: Int) {
        guard count > 0 else { return }
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 32).bindMemory(to: Float.self, capacity: count)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: count)
        blend(backdrop: backdrop, layer: PlanarPixels(red: zeros, green: zeros, blue: zeros, alpha: zeros), count: count)
    }
}

/// A geometry step: it says, for an input of a given size, what the output is made of;
/// the pipeline decides how that runs.
public protocol GeometryKernel: Sendable {
    /// What the step does to an image of `size`. `size` is the image as the chain sees it;
    /// throws when the step cannot apply to that size (a crop reaching outside).
    func layout(for size: ImageSize) throws(GeometryError) -> GeometryLayout
    /// True when the decoder may deliver a smaller image (JPEG DCT scaling) for this step
    /// to resample, when it comes first: an approximation the step's parameters allow.
    var allowsShrinkOnLoad: Bool { get }
}

extension GeometryKernel {
    public var allowsShrinkOnLoad: Bool { false }
}

/// A rectangle of pixels.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: ImageSize { ImageSize(width: width, height: height) }
    public var description: String { "\(width)x\(height) at (\(x), \(y))" }
}

/// What a geometry step makes of its input.
public enum GeometryLayout: Sendable, Hashable {
    /// Lanczos3 resampling (Pillow's convention) of the whole input to `size`, of which the
    /// output keeps `window` (all of it, unless a cover fit crops the middle).
    case resample(to: ImageSize, window: PixelRect)
    /// The pixels of `rect`, unchanged.
    case crop(PixelRect)
    /// The input turned: output pixel (ux, uy) is stored pixel
    /// `orientation.storedPosition(ux, uy)`, as an EXIF orientation turns an image upright.
    case turn(Orientation)

    /// The output's size for an input of `input`.
    public func outputSize(from input: ImageSize) -> ImageSize {
        switch self {
        case .resample(_, let window): window.size
        case .crop(let rect): rect.size
        case .turn(let o): o.swapsAxes ? ImageSize(width: input.height, height: input.width) : input
        }
    }
}

/// Why a geometry step cannot apply to an image.
public struct GeometryError: Error, Sendable, Hashable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// Pixels as planes of Float: four pointers to `count` consecutive pixels of one row.
public struct PlanarPixels {
    public var red: UnsafeMutablePointer<Float>
    public var green: UnsafeMutablePointer<Float>
    public var blue: UnsafeMutablePointer<Float>
    public var alpha: UnsafeMutablePointer<Float>

    public init(red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                blue: UnsafeMutablePointer<Float>, alpha: UnsafeMutablePointer<Float>) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    @inline(__always)
    public func offset(by n: Int) -> PlanarPixels {
        PlanarPixels(red: red + n, green: green + n, blue: blue + n, alpha: alpha + n)
    }
}

/// A point operation on straight (unpremultiplied) colour.
public protocol PointKernel: Sendable {
    /// Transforms `count` pixels in place. `count` is a multiple of 8 and every pointer is
    /// aligned to 32 bytes, so kernels may work in SIMD8 steps without a tail.
    func apply(_ pixels: PlanarPixels, count: Int)
}

/// A point operation that also needs each pixel's position and the current image's size
/// (a vignette, a gradient). The pipeline calls it with runs that never cross a row;
/// results must not depend on how a row is cut.
public protocol PositionalKernel: Sendable {
    /// Transforms `count` pixels of row `row`, the first at column `column`. `count` is a
    /// multiple of 8 and pointers are 32-byte aligned; columns at or past `size.width` are
    /// padding, and their values do not matter.
    func apply(_ pixels: PlanarPixels, count: Int, row: Int, column: Int, size: ImageSize)
}


/// The size of the image a step works on.
public struct ImageSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// Combines a neighbourhood result with the step's input, pixel by pixel, on premultiplied
/// colour and alpha.
public protocol CombineKernel: Sendable {
    /// `input` is the step's input and `result` the neighbourhood operation's output for the
    /// same `count` pixels (a multiple of 8, 32-byte aligned); writes the step's output into
    /// `result`, alpha included.
    func combine(input: PlanarPixels, into result: PlanarPixels, count: Int)
}

/// A separable neighbourhood operation, applied to each plane (premultiplied colour and
/// alpha) alike: a horizontal pass, then a vertical pass. Pixels beyond the image's edges
/// repeat the edge pixels.
public protocol SeparableKernel: Sendable {
    /// How far the operation reaches, in pixels, along each axis.
    var radius: Int { get }
    /// The horizontal pass for rows `width` pixels long.
    func makeHorizontalPass(width: Int) -> any HorizontalPass
    /// The vertical pass for one plane of an image of this size.
    func makeVerticalPass(width: Int, height: Int) -> any VerticalPass
}

/// The horizontal pass of a separable kernel; shared by all threads.
public protocol HorizontalPass: Sendable {
    /// Runs in place over `rowCount` rows; row r starts at rows + r * stride. `stride` is a
    /// multiple of 8 and at least the width rounded up to 8; columns past the width may be
    /// overwritten.
    func run(_ rows: UnsafeMutablePointer<Float>, stride: Int, rowCount: Int)
}

/// The vertical pass of a separable kernel over one plane.
public protocol VerticalPass: AnyObject {
    /// Computes output row `y` for `columns` into `destination` (indexed from column 0).
    /// `input(i)` is input row i, rows beyond the image's edges clamped to it. Column ranges
    /// start at multiples of 8 and stay the same for the whole image; for each range the
    /// pipeline calls y = 0, 1, 2, ... in order, so a pass may keep running sums, and it
    /// keeps input rows y - radius - 1 ... y + radius available.
    func run(y: Int, input: (Int) -> UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>, columns: Range<Int>)
    /// Computes output rows `rows` (consecutive, in order, as `run(y:)` is called) for
    /// `columns`; `destination(y)` is output row y. The pipeline calls this; a pass may
    /// override it to keep its running sums in registers across the rows (the default calls
    /// `run(y:)` for each row). The result is the same as row by row.
    func run(rows: Range<Int>, input: (Int) -> UnsafePointer<Float>, destination: (Int) -> UnsafeMutablePointer<Float>, columns: Range<Int>)
}

extension VerticalPass {
    public func run(rows: Range<Int>, input: (Int) -> UnsafePointer<Float>, destination: (Int) -> UnsafeMutablePointer<Float>, columns: Range<Int>) {
        for y in rows { run(y: y, input: input, destination: destination(y), columns: columns) }
    }
}
