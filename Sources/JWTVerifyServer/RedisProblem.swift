/// What went wrong with Redis (``RedisAddress`` or ``RedisReplayStore``), for people.
package struct RedisProblem: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package let description: String

    /// A problem saying `description`.
    package init(_ description: String) { self.description = description }
}
