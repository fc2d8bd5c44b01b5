package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The small parts: command queue, token bucket, nickname profile, stanza ids, settings. */
class MucPartsTest {

    @Test
    void commandQueue_full_offerReturnsFalse_fifoPreserved() {
        ManyToOneCommandQueue<Integer> q = new ManyToOneCommandQueue<>(5);
        assertThat(q.capacity()).isEqualTo(8);
        for (int i = 0; i < 8; i++) {
            assertThat(q.offer(i)).isTrue();
        }
        assertThat(q.offer(99)).isFalse();
        assertThat(q.poll()).isEqualTo(0);
        assertThat(q.offer(8)).isTrue();
        List<Integer> got = new ArrayList<>();
        for (Integer i; (i = q.poll()) != null; ) {
            got.add(i);
        }
        assertThat(got).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void commandQueue_manyProducers_noLossNoDuplicate_perProducerOrder() throws Exception {
        ManyToOneCommandQueue<long[]> q = new ManyToOneCommandQueue<>(64);
        int producers = 4;
        int each = 20_000;
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long id = p;
            threads.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    long[] item = {id, i};
                    while (!q.offer(item)) {
                        Thread.yield();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        long[] next = new long[producers];
        int received = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (received < producers * each && System.nanoTime() < deadline) {
            long[] item = q.poll();
            if (item == null) {
                Thread.yield();
                continue;
            }
            if (item[1] != next[(int) item[0]]) {
                throw new AssertionError("producer " + item[0] + ": expected " + next[(int) item[0]] + ", got "
                        + item[1]);
            }
            next[(int) item[0]]++;
            received++;
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertThat(received).isEqualTo(producers * each);
        assertThat(q.poll()).isNull();
    }

    @Test
    void tokenBucket_burstThenRate() {
        long now = 0;
        TokenBucket b = new TokenBucket(3, now);
        assertThat(b.tryTake(now, 10, 3)).isTrue();
        assertThat(b.tryTake(now, 10, 3)).isTrue();
        assertThat(b.tryTake(now, 10, 3)).isTrue();
        assertThat(b.tryTake(now, 10, 3)).isFalse();
        now += 99_000_000L; // 0.099 s: not yet one token at 10/s
        assertThat(b.tryTake(now, 10, 3)).isFalse();
        now += 1_000_000L;
        assertThat(b.tryTake(now, 10, 3)).isTrue();
        now += 3_600_000_000_000L; // an hour: refills to the burst, not beyond
        for (int i = 0; i < 3; i++) {
            assertThat(b.tryTake(now, 10, 3)).isTrue();
        }
        assertThat(b.tryTake(now, 10, 3)).isFalse();
    }

    @Test
    void nicknames_profile() {
        assertThat(Nicknames.normalize("Alice", 64)).isEqualTo("Alice");
        assertThat(Nicknames.normalize("\uFF21lice", 64)).isEqualTo("Alice"); // NFKC
        assertThat(Nicknames.normalize("Al ice", 64)).isEqualTo("Al ice");
        assertThat(Nicknames.normalize("\uD83D\uDE00", 64)).isEqualTo("\uD83D\uDE00"); // emoji ok
        assertThat(Nicknames.normalize("", 64)).isNull();
        assertThat(Nicknames.normalize(" Alice", 64)).isNull();
        assertThat(Nicknames.normalize("Alice ", 64)).isNull();
        assertThat(Nicknames.normalize("a\u200Fb", 64)).isNull(); // RLM (bidi)
        assertThat(Nicknames.normalize("a\u0000b", 64)).isNull();
        assertThat(Nicknames.normalize("a\nb", 64)).isNull();
        assertThat(Nicknames.normalize("a\uE000b", 64)).isNull(); // private use
        assertThat(Nicknames.normalize("abcd", 3)).isNull();
        assertThat(Nicknames.key("ALICE")).isEqualTo(Nicknames.key("alice"));
    }

    @Test
    void stanzaIds_uniqueAcrossThreads_withNodePrefix() throws Exception {
        StanzaIds ids = new StanzaIds("node1", 1_700_000_000_000L);
        assertThat(ids.next()).startsWith("node1-");
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    seen.add(ids.next());
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(seen).hasSize(40_000);
        assertThat(new StanzaIds("", 1L).next()).isNotEqualTo(new StanzaIds("", 2L).next());
    }

    @Test
    void settings_keysUniqueAndNamed_defaultsValid() {
        Set<String> keys = new HashSet<>();
        for (Setting<?> s : MucSettings.ALL) {
            assertThat(s.key()).startsWith("mucscale.muc.").doesNotContain("_");
            assertThat(keys.add(s.key())).isTrue();
            assertThat(s.description()).endsWith(".");
        }
        MucConfig c = MucConfig.defaults();
        assertThat(c.shardThreads()).isGreaterThanOrEqualTo(1);
        assertThat(c.commandQueueCapacity()).isEqualTo(16384);
    }

    @Test
    void settings_badValues_namedInError() {
        assertThatThrownBy(() -> Settings.fromText(MucSettings.ALL, Map.of("mucscale.muc.occupant-burst", "0")))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.muc.occupant-burst must be a whole number between 1 and 1000000, was 0");
        assertThatThrownBy(() -> Settings.fromText(MucSettings.ALL, Map.of("mucscale.muc.room-creators", "a@@b")))
                .hasMessageContaining("mucscale.muc.room-creators must be comma-separated bare JIDs");
        assertThatThrownBy(() -> Settings.fromText(MucSettings.ALL, Map.of("mucscale.muc.stanza-id-node", "a-b")))
                .hasMessageContaining("mucscale.muc.stanza-id-node");
        MucConfig c = MucConfig.from(Settings.fromText(MucSettings.ALL, Map.of("mucscale.muc.service-admins",
                "root@example.org, ops@example.org")));
        assertThat(c.serviceAdmins).hasSize(2);
    }
}
