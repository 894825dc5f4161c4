import Synchronization

/// Tasks on the worker pool that one thread waits for; tasks may add more tasks. The first
/// error thrown is kept. (@unchecked Sendable: `firstError` is guarded by `monitor`, and
/// `outstanding` is atomic.)
final class TaskGroup: @unchecked Sendable {
    private let pool: WorkerPool
    private let monitor = Monitor()
    /// Tasks submitted and not yet finished. Readable without the lock (for polling); it
    /// reaches 0 only under the lock, so a waiter that checks it there never misses the end.
    private let outstanding = Atomic<Int>(0)
    private var firstError: (any Error)?

    init(pool: WorkerPool) { self.pool = pool }

    /// Tasks submitted and not yet finished (diagnostics).
    var outstandingCount: Int { outstanding.load(ordering: .relaxed) }

    func submit(_ priority: WorkerPool.Priority, _ work: @escaping () throws -> Void) {
        outstanding.add(1, ordering: .relaxed)
        pool.submit(priority) { [self] in
            var failure: (any Error)?
            do { try work() } catch { failure = error }
            monitor.locked {
                if let failure, firstError == nil { firstError = failure }
                if outstanding.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { monitor.broadcast() }
            }
        }
    }

    /// Waits until every task (including those added by tasks) has run; throws the first
    /// error any of them threw.
    func wait() throws {
        pollBriefly { outstanding.load(ordering: .acquiring) == 0 }
        let error: (any Error)? = monitor.locked {
            while outstanding.load(ordering: .acquiring) > 0 { monitor.wait() }
            let e = firstError
            firstError = nil
            return e
        }
        if let error { throw error }
    }
}

/// Set from anywhere (a signal handler's thread) to stop work: no new image starts, and
/// images in flight stop at their next strip and throw `RenderCancelled`.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// The work was cancelled; nothing was written.
public struct RenderCancelled: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "interrupted" }
}
