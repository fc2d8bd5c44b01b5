package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.mucscale.engine.port.Clock;

/**
 * The process {@link CrashDurabilityTest} kills with SIGKILL: a store in write-ahead mode that "broadcasts" (prints
 * {@code ACK <id>}) each message only after {@link RoomLogStore#appendDurable} completed, as the MUC engine does.
 * Arguments: jdbcUrl user password spillDir messages.
 */
public final class CrashChild {
    private CrashChild() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        HikariDataSource ds = StandaloneDataSource.create(args[0], args[1], args[2], 4);
        StoreConfig config = StoreConfig.defaults(Path.of(args[3]))
                .withBatching(500, Duration.ofMillis(300))
                .withDurability(DurabilityMode.WRITE_AHEAD_LOG);
        RoomLogStore store = new RoomLogStore(ds, DatabaseType.MARIADB, config, Clock.SYSTEM, StoreListener.NONE, true);
        store.start();
        out.println("STARTED");
        int messages = Integer.parseInt(args[4]);
        int rooms = 8;
        Thread[] threads = new Thread[rooms];
        for (int t = 0; t < rooms; t++) {
            int room = t;
            // One thread per room, each waiting for its message to be durable before "broadcasting" it: the writes
            // of all rooms share fsyncs (group commit).
            threads[t] = new Thread(() -> {
                for (int i = room; i < messages; i += rooms) {
                    RoomLogRecord r = StoreTestSupport.record("crash@muc", i);
                    try {
                        if (store.appendDurable(r).get().accepted()) {
                            out.println("ACK " + r.stanzaId());
                        }
                    } catch (Exception e) {
                        out.println("FAILED " + r.stanzaId() + " " + e);
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        out.println("DONE");
        Thread.sleep(Long.MAX_VALUE);
    }
}
