package org.mucscale.engine.port;

/** All time the engine reads, behind one interface so tests can drive it. */
public interface Clock {
    /** Monotonic time for intervals and latency. */
    long nanoTime();

    /** Wall time for timestamps written to clients and the database. */
    long currentTimeMillis();

    Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }
    };
}
