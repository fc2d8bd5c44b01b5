package org.mucscale.engine.muc;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.mucscale.engine.muc.admin.Page;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.muc.admin.RoomSummary;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37's list target measured: with 100,000 rooms, a page of 50 (with a search, and without) and the rate of
 * creating rooms through the administration API. Runs with {@code -Dmucscale.bench=true} only; prints its figures.
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class RoomAdminListBenchmarkTest extends MucTestBase {
    static final int ROOMS = 100_000;

    @Test
    void list_with100kRooms_p99AndCreateRate() {
        start(Map.of("mucscale.muc.max-rooms", "1000000"), b -> { });
        RoomAdmin admin = new RoomAdmin(muc);
        long t0 = System.nanoTime();
        for (int i = 0; i < ROOMS; i++) {
            RoomSettings s = new RoomSettings();
            s.owners = List.of("boss@example.org");
            s.description = i % 100 == 0 ? "tournament" : "casual";
            admin.create(String.format("room%06d", i), s, false);
        }
        double createPerSecond = ROOMS / ((System.nanoTime() - t0) / 1e9);
        for (String search : new String[] {null, "tourn"}) {
            long[] ns = new long[200];
            String after = null;
            for (int i = 0; i < ns.length; i++) {
                long s = System.nanoTime();
                Page<RoomSummary> p = admin.list(search, after, 50);
                ns[i] = System.nanoTime() - s;
                after = p.next();
                assertThat(p.items()).isNotEmpty();
            }
            Arrays.sort(ns);
            System.out.printf("BENCH list search=%s rooms=%d p50=%.1f ms p99=%.1f ms%n", search, ROOMS,
                    ns[ns.length / 2] / 1e6, ns[ns.length * 99 / 100] / 1e6);
        }
        System.out.printf("BENCH create rooms/s=%.0f (one caller thread)%n", createPerSecond);
    }
}
