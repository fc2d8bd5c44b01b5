package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopRoomsTest {

    @Test
    void snapshot_withHeavyRoomsAmongManyColdOnes_listsTheHeavyRoomsFirst() {
        TopRooms top = new TopRooms(8);
        for (int i = 0; i < 10_000; i++) {
            top.record("cold-" + i, 1);
            if (i % 2 == 0) {
                top.record("busy@conference", 1);
            }
            if (i % 5 == 0) {
                top.record("second@conference", 1);
            }
        }

        List<TopRooms.Entry> entries = top.snapshotAndReset(2);

        assertThat(entries).extracting(TopRooms.Entry::room).containsExactly("busy@conference", "second@conference");
        assertThat(entries.get(0).count() - entries.get(0).error()).isLessThanOrEqualTo(5_000);
        assertThat(entries.get(0).count()).isGreaterThanOrEqualTo(5_000);
    }

    @Test
    void snapshot_resetsCounts() {
        TopRooms top = new TopRooms(4);
        top.record("a", 3);
        assertThat(top.snapshotAndReset(10)).containsExactly(new TopRooms.Entry("a", 3, 0));
        assertThat(top.snapshotAndReset(10)).isEmpty();
    }

    @Test
    void constructor_withZeroCapacity_isRefused() {
        assertThatThrownBy(() -> new TopRooms(0)).hasMessageContaining("capacity must be between 1 and 10000, was 0");
    }
}
