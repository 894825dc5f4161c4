import FilterChain
import Foundation

/// The 1:1 view: a region of the image after a step, at full resolution, rendered by the
/// engine for that region only where the chain allows it.
extension Editor {
    /// A rendered region, as the page's loupe shows it.
    public struct Region: Sendable {
        /// 8-bit sRGB PNG bytes of the region.
        public var png: [UInt8]
        /// The full-size image's size at that step (geometry steps change it).
        public var fullSize: ImageSize
        /// The region as rendered: the one asked for, moved and cut to lie inside the image.
        public var rect: PixelRect
        /// "crop": the chain ran on a crop of the input (with a margin for what blurs
        /// reach); "full": on the whole full-size image, then cut (geometry steps, graphs,
        /// masks and filters that depend on the position change what a region depends on).
        public var method: String
    }

    /// The largest region side the loupe asks for.
    public static let regionLimit = 4096

    /// The region `rect` (in pixels of the full-size image after STEP) of the current chain,
    /// at full resolution.
    public func renderRegion(step: String, rect asked: PixelRect) throws -> Region {
        guard asked.width >= 1, asked.height >= 1, asked.width <= Editor.regionLimit, asked.height <= Editor.regionLimit else {
            throw EditorError(status: 400, "region: \(asked.width)x\(asked.height) is not allowed; allowed: 1 to \(Editor.regionLimit) pixels a side")
        }
        let chain = try currentChain()
        let position: Int
        do { position = try StepReference(step).resolve(in: chain) } catch {
            throw EditorError(status: 404, "\(chainPath): \(error)")
        }
        let prefix = chain.prefix(through: position)
        let full: ImageSize
        do { full = try prefix.sizes(at: [position], input: ImageSize(width: image.width, height: image.height))[0] } catch {
            throw EditorError(status: 422, "\(imagePath): \(error)")
        }
        // Inside the image, keeping the size asked for where the image allows.
        let width = min(asked.width, full.width), height = min(asked.height, full.height)
        let rect = PixelRect(x: min(max(0, asked.x), full.width - width), y: min(max(0, asked.y), full.height - height),
                             width: width, height: height)
        let flag = startRegionRender()
        let (source, chainForRegion, method) = Editor.regionPlan(prefix, image: image, rect: rect)
        do {
            let png = try encodePNG(source, chain: chainForRegion, cancel: flag)
            return Region(png: png, fullSize: full, rect: rect, method: method)
        } catch is RenderCancelled {
            throw EditorError(status: 503, "cancelled: a newer region superseded this render")
        } catch let error as EditorError {
            throw error
        } catch {
            throw EditorError(status: 500, "\(error)")
        }
    }

    /// What to render for `rect` of the image after every step of `chain`: the chain on a
    /// crop of the input, when each of its steps works on each pixel from the pixels within
    /// its reach only (point filters, blurs, unsharp masks; no geometry, mask, blend, input
    /// reference or filter that depends on the position), with a margin of every reach added
    /// up; else the chain on the whole image. Either way a crop step last cuts the region.
    static func regionPlan(_ chain: Chain, image: RasterImage, rect: PixelRect) -> (RasterImage, Chain, String) {
        var margin = 0
        var local = !chain.usesGraph
        for step in chain.steps where step.enabled && local {
            switch step.filter.operation(in: chain.workingSpace) {
            case .identity, .point: break
            case .separable(let kernel), .combine(let kernel, _): margin += kernel.radius + 2
            default: local = false
            }
        }
        func cut(_ chain: Chain, _ r: PixelRect) -> Chain {
            var cut = chain
            cut.steps.append(Step(filter: Crop(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))))
            return cut
        }
        guard local else { return (image, cut(chain, rect), "full") }
        let x0 = max(0, rect.x - margin), y0 = max(0, rect.y - margin)
        let x1 = min(image.width, rect.x + rect.width + margin), y1 = min(image.height, rect.y + rect.height + margin)
        let around = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let inside = PixelRect(x: rect.x - x0, y: rect.y - y0, width: rect.width, height: rect.height)
        return (image.cropped(to: around), cut(chain, inside), "crop")
    }
}

extension RasterImage {
    /// The pixels of `rect` (inside the image), with the image's metadata.
    func cropped(to rect: PixelRect) -> RasterImage {
        let bytes = format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: rect.width * rect.height * bytes)
        let rowBytes = self.rowBytes
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                for row in 0..<rect.height {
                    let from = (rect.y + row) * rowBytes + rect.x * bytes
                    (target.baseAddress! + row * rect.width * bytes)
                        .copyMemory(from: source.baseAddress! + from, byteCount: rect.width * bytes)
                }
            }
        }
        var copy = (try? RasterImage(width: rect.width, height: rect.height, format: format, metadata: metadata, pixels: out))!
        copy.sourceFormat = sourceFormat
        return copy
    }
}
