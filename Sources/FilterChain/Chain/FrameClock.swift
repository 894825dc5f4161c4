/// Where a render is in an animation, as expressions read it: `frame` (from 0), `frames`
/// (the count) and `time` (the frame's start, in seconds, the delays before it summed).
public struct FrameClock: Sendable, Hashable {
    public var frame: Int
    public var frames: Int
    public var time: Double

    public init(frame: Int, frames: Int, time: Double) {
        self.frame = frame
        self.frames = frames
        self.time = time
    }

    /// A still image: frame 0 of 1, at time 0.
    public static let still = FrameClock(frame: 0, frames: 1, time: 0)
}
