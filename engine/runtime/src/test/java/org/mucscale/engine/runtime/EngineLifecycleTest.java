package org.mucscale.engine.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.runtime.EngineFixture.SERVICE;
import static org.mucscale.engine.runtime.EngineFixture.groupchat;
import static org.mucscale.engine.runtime.EngineFixture.instantRoom;
import static org.mucscale.engine.runtime.EngineFixture.join;

import com.zaxxer.hikari.HikariDataSource;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.StandaloneDataSource;

/**
 * Issue 3: the engine starts and stops 50 times, with traffic each time, and leaves no thread, timer or executor of
 * ours behind, and the heap does not grow (a plugin reload must not leak).
 */
class EngineLifecycleTest {
    @TempDir
    Path dir;

    @Test
    void startStop_50Times_leavesNoThreadAndNoHeapGrowth() throws Exception {
        List<String> before = ThreadLeaks.ours();
        assertThat(before).isEmpty();
        long heapAfterWarmup = 0;
        try (HikariDataSource db = StandaloneDataSource.create("jdbc:hsqldb:mem:lifecycle", "SA", "", 2)) {
            for (int i = 0; i < 50; i++) {
                RecordingDelivery out = new RecordingDelivery();
                MucScaleEngine engine = MucScaleEngine.builder(SERVICE,
                                EngineFixture.settings(dir.resolve("spill"), "mucscale.metrics.jmx-enabled", "true"), out)
                        .database(db, DatabaseType.HSQLDB, true).serveHttp(true).build();
                engine.start();
                engine.process(join("a@example.org/r", "room" + i, "a"));
                engine.process(instantRoom("a@example.org/r", "room" + i));
                engine.process(groupchat("a@example.org/r", "room" + i, "message " + i));
                MucScaleEngineTest.await(() -> out.to("a@example.org/r").stream().anyMatch(x -> x.contains("message ")));
                engine.close();
                assertThat(ThreadLeaks.ours()).as("threads of ours after stop #%d", i + 1).isEmpty();
                assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(
                        new javax.management.ObjectName("org.mucscale:*"), null)).as("MBeans after stop #%d", i + 1).isEmpty();
                if (i == 9) {
                    heapAfterWarmup = usedHeapAfterGc();
                }
            }
        }
        long growth = usedHeapAfterGc() - heapAfterWarmup;
        assertThat(growth).as("heap growth over 40 start/stop cycles, bytes").isLessThan(8L * 1024 * 1024);
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            Runtime rt = Runtime.getRuntime();
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }
}
