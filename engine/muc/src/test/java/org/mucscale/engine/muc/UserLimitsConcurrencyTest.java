package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.RepeatedTest;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link UserLimits} is shared by every room thread without a lock: several threads taking tokens and reserving rooms
 * for the same users, while another sweeps continuously, must grant exactly the budget and count every room. (The
 * first design, with one atomic per field, granted 502 of 500 in 1 of 30 repetitions here.)
 */
class UserLimitsConcurrencyTest {
    private static final int THREADS = 4;

    private static MucConfig config(Map<String, String> s) {
        return MucConfig.from(Settings.fromText(MucSettings.ALL, s));
    }

    /** Repeated: the race it guards against (a token taken on an entry a sweep removes) is rare per run. */
    @RepeatedTest(50)
    void joins_concurrentRoomThreads_grantExactlyTheBurst_whileSweeping() throws Exception {
        MucConfig cfg = config(Map.of("mucscale.muc.user-join-burst", "500", "mucscale.muc.user-joins-per-minute", "1"));
        UserLimits limits = new UserLimits();
        Jid user = Jid.parse("bob@example.org");
        long now = 1_000_000_000L; // a fixed instant: no refill, so exactly the burst may pass
        AtomicInteger granted = new AtomicInteger();
        runConcurrently(() -> {
            for (int i = 0; i < 1_000; i++) {
                if (limits.admitJoin(user, now, cfg)) {
                    granted.incrementAndGet();
                }
            }
        }, () -> limits.sweep(now));
        assertThat(granted.get()).isEqualTo(500);
    }

    @RepeatedTest(20)
    void rooms_concurrentCreationsAndReleases_neverPassTheCap_andCountEveryRoom() throws Exception {
        UserLimits limits = new UserLimits();
        Jid user = Jid.parse("carol@example.org");
        AtomicInteger held = new AtomicInteger();
        AtomicInteger maxHeld = new AtomicInteger();
        AtomicLong reserved = new AtomicLong();
        runConcurrently(() -> {
            List<UserLimits.Entry> mine = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                UserLimits.Entry e = limits.reserveRoom(user, 10);
                if (e != null) {
                    reserved.incrementAndGet();
                    maxHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                    mine.add(e);
                }
                if (mine.size() > 1 || (e == null && !mine.isEmpty())) {
                    held.decrementAndGet();
                    limits.releaseRoom(mine.remove(0));
                }
            }
            for (UserLimits.Entry e : mine) {
                held.decrementAndGet();
                limits.releaseRoom(e);
            }
        }, () -> limits.sweep(Long.MAX_VALUE / 4));
        assertThat(reserved.get()).isPositive();
        assertThat(maxHeld.get()).isLessThanOrEqualTo(10);
        assertThat(limits.roomsOf(user)).isZero();
        limits.sweep(Long.MAX_VALUE / 4);
        assertThat(limits.size()).as("an idle user with no room is forgotten").isZero();
    }

    /** Runs {@code work} on {@link #THREADS} threads at once while another thread repeats {@code sweep}. */
    private static void runConcurrently(Runnable work, Runnable sweep) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(THREADS);
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    work.run();
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "room-thread-" + t);
            th.start();
        }
        Thread sweeper = new Thread(() -> {
            try {
                go.await();
                while (done.getCount() > 0) {
                    sweep.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sweeper");
        sweeper.start();
        go.countDown();
        done.await();
        sweeper.join();
        assertThat(failures).isEmpty();
    }
}
