import Foundation

/// Two result slots, each written by exactly one worker before `concurrentPerform` returns.
private final class ResultPair<A, B>: @unchecked Sendable {
    var first: Result<A, Error>?
    var second: Result<B, Error>?
}

/// Runs two independent pieces of work at once (two files hashed on two cores) and returns both
/// results, or the first error.
func inParallel<A: Sendable, B: Sendable>(_ first: @escaping @Sendable () throws -> A, _ second: @escaping @Sendable () throws -> B) throws -> (A, B) {
    let results = ResultPair<A, B>()
    DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 { results.first = Result { try first() } } else { results.second = Result { try second() } }
    }
    return (try results.first!.get(), try results.second!.get())
}
