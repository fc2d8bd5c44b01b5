package org.mucscale.engine.runtime;

import java.util.List;

/**
 * Threads of ours still alive: every thread mucscale starts is named mucscale-*. The connection pool's threads
 * ("mucscale-store housekeeper" ...) belong to the host, which creates and closes the pool, not to the engine.
 */
final class ThreadLeaks {
    private ThreadLeaks() {
    }

    static List<String> ours() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("mucscale") && !n.startsWith("mucscale-store "))
                .sorted()
                .toList();
    }
}
