package org.mucscale.engine.muc;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;

/**
 * What a join costs in {@link UserLimits}, alone and with a second room thread hammering the same user (worst case for
 * compare-and-set) or other users: a measurement to read, not a test (nothing here is asserted). Run with
 * {@code java -cp <muc test-classes:classes:core classes> org.mucscale.engine.muc.UserLimitsCost}.
 */
public final class UserLimitsCost {
    private static final int OPS = 5_000_000;

    public static void main(String[] args) throws Exception {
        MucConfig cfg = MucConfig.from(Settings.fromText(MucSettings.ALL, Map.of(
                "mucscale.muc.user-join-burst", "1000000", "mucscale.muc.user-joins-per-minute", "6000000")));
        for (int round = 0; round < 3; round++) {
            System.out.printf("round %d: alone %.1f ns/join, 2 threads same user %.1f, 2 threads other users %.1f%n",
                    round, run(cfg, 1, true), run(cfg, 2, true), run(cfg, 2, false));
        }
    }

    /** Mean wall nanoseconds per admitJoin over {@code threads} threads (time advances so tokens refill). */
    private static double run(MucConfig cfg, int threads, boolean sameUser) throws Exception {
        UserLimits limits = new UserLimits();
        Jid[] users = new Jid[1024];
        for (int i = 0; i < users.length; i++) {
            users[i] = Jid.parse("u" + i + "@example.org");
        }
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        long[] sink = new long[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long granted = 0;
                for (int i = 0; i < OPS; i++) {
                    Jid u = sameUser ? users[0] : users[(i + id * 512) & 1023];
                    if (limits.admitJoin(u, System.nanoTime(), cfg)) {
                        granted++;
                    }
                }
                sink[id] = granted;
            });
            ts[t].start();
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        long ns = System.nanoTime() - start;
        return (double) ns / OPS; // per operation of one thread (threads run in parallel)
    }
}
