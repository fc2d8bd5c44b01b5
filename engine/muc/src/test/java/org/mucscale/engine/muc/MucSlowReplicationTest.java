package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;

/**
 * Copying every room when a second node joins ({@link MucService#replicateAll}) waits out a replication write slower
 * than the 10 s the service used to wait for a room thread: the cluster switches to the new view only after that copy,
 * and a timeout there left a node on its old view.
 */
class MucSlowReplicationTest extends MucTestBase {

    /** Writes that complete {@code delayMs} after they start; records what they carried. */
    private static final class SlowReplication implements RoomReplication {
        volatile boolean active;
        volatile long delayMs;
        final List<RoomImage> written = new CopyOnWriteArrayList<>();

        @Override
        public boolean active() {
            return active;
        }

        @Override
        public CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS).execute(() -> {
                written.addAll(changed);
                done.complete(null);
            });
            return done;
        }
    }

    @Test
    void replicateAll_writeSlowerThanTenSeconds_waitsForIt_andCopiesTheRoomWithItsOccupants() {
        SlowReplication slow = new SlowReplication();
        start(Map.of(), b -> b.cluster(RoomPlacement.LOCAL, slow));
        createInstant(alice, "r1", "alice");
        join(bob, "r1", "bob");
        muc.awaitIdle();

        slow.active = true; // a second node joined
        slow.delayMs = 12_000;
        long start = System.nanoTime();
        muc.replicateAll();

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("waited for the write")
                .isGreaterThanOrEqualTo(12_000);
        assertThat(slow.written).singleElement().satisfies(image -> {
            assertThat(image.room()).isEqualTo(room("r1"));
            assertThat(image.occupants()).hasSize(2);
        });
    }
}
