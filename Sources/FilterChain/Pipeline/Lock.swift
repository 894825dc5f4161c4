#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with a condition variable (pthread), for the pipeline's own bookkeeping. Both live
/// in memory of their own: pthread needs them at one address for their whole life, which a
/// Swift stored property's `&` does not promise. (@unchecked Sendable: a pthread mutex and
/// condition; the type exists to be shared.)
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    @inline(__always)
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (with the lock held) until signalled.
    func wait() { pthread_cond_wait(condition, mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
    func signal() { pthread_cond_signal(condition) }
}

/// Polls `done` for up to `microseconds`, yielding the processor between polls; true once
/// `done` holds. Used before blocking on a condition variable when the wait is expected to
/// be short: on a virtual machine an idle core halts, and waking a thread blocked in the
/// kernel can take 50-200 us, against strips of work that arrive every few milliseconds.
@discardableResult
func pollBriefly(microseconds: Int = 200, until done: () -> Bool) -> Bool {
    if done() { return true }
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    while true {
        sched_yield()
        if done() { return true }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let elapsed = (now.tv_sec - start.tv_sec) * 1_000_000 + (now.tv_nsec - start.tv_nsec) / 1000
        if elapsed >= microseconds { return false }
    }
}
