package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoomPlanTest {

    @Test
    void zipf_ref5000_keepsTotalLargestAndDecreasingSizes() {
        int[] sizes = RoomPlan.zipf(5000, 100, 0.5, 427);
        assertThat(Arrays.stream(sizes).sum()).isEqualTo(5000);
        assertThat(sizes).hasSize(100);
        assertThat(sizes[0]).isEqualTo(427);
        for (int i = 2; i < sizes.length; i++) {
            assertThat(sizes[i]).isLessThanOrEqualTo(sizes[i - 1]);
        }
        // Zipf 0.5: room k holds about room 2's size * sqrt(2/k)
        assertThat((double) sizes[99] / sizes[1]).isCloseTo(Math.sqrt(2.0 / 100), org.assertj.core.data.Offset.offset(0.02));
        assertThat(sizes[99]).isGreaterThanOrEqualTo(2);
    }

    @Test
    void zipf_withoutLargest_followsWeights() {
        int[] sizes = RoomPlan.zipf(1000, 10, 1.0, 0);
        assertThat(Arrays.stream(sizes).sum()).isEqualTo(1000);
        double h = 0;
        for (int k = 1; k <= 10; k++) {
            h += 1.0 / k;
        }
        assertThat(sizes[0]).isBetween((int) Math.floor(1000 / h), (int) Math.ceil(1000 / h));
        assertThat(sizes[9]).isBetween((int) Math.floor(100 / h), (int) Math.ceil(100 / h));
    }

    @Test
    void zipf_steepExponent_stillGivesEveryRoomTwoUsers() {
        int[] sizes = RoomPlan.zipf(100, 20, 3.0, 0);
        assertThat(Arrays.stream(sizes).sum()).isEqualTo(100);
        assertThat(Arrays.stream(sizes).min().getAsInt()).isEqualTo(2);
    }

    @Test
    void fixed_rooms50_gives40RoomsOf50() {
        int[] sizes = RoomPlan.sizes(ScenarioLoader.load("rooms50", List.of()).rooms(), 2000);
        assertThat(sizes).hasSize(40).containsOnly(50);
        assertThat(RoomPlan.fixed(103, 50)).containsExactly(50, 50, 3);
        assertThat(RoomPlan.fixed(101, 50)).containsExactly(50, 51);
    }

    @Test
    void zipf_largestLeavingTooFewUsers_isRejected() {
        assertThatThrownBy(() -> RoomPlan.zipf(100, 10, 0.5, 90)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("largest room 90");
    }
}
