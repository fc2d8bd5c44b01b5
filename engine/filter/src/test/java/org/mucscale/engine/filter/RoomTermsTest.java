package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A room's own terms (issue 16: the review page's "retract and add term"). */
class RoomTermsTest {

    private static final String LOBBY = "lobby@muc.example.org";
    private static final String OTHER = "other@muc.example.org";
    private static final List<ListEntry> LISTS = Fixtures.entries("fuck*;severity=HIGH", "damn;severity=LOW");

    private static ContentFilter filter(PolicyStore store) {
        return ContentFilter.start(FilterConfig.builder().builtinLists(false).entries(LISTS).languages("en").build(),
                store, FilterListener.NONE);
    }

    @Test
    void roomTerm_matchesOnlyInItsRoom_globalListsStillApplyEverywhere() throws Exception {
        try (ContentFilter f = filter(PolicyStore.inMemory())) {
            assertThat(f.inspect(LOBBY, "you zorblax", null)).isSameAs(FilterVerdict.CLEAN);
            f.addRoomTerm("Lobby@muc.example.org", "zorblax").get();

            FilterVerdict lobby = f.inspect(LOBBY, "you ZORBLAX", null);
            assertThat(lobby.action()).isEqualTo(Action.MASK);
            assertThat(lobby.maskedBody()).isEqualTo("you *******");
            assertThat(lobby.matches()).extracting(FilterMatch::list).containsExactly(ContentFilter.ROOM_TERMS);
            assertThat(f.inspect(LOBBY, "hi", "z0rblax topic").maskedSubject()).as("subject, evasion folding")
                    .isEqualTo("******* topic");
            assertThat(f.inspect(OTHER, "you zorblax", null)).as("another room").isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect(OTHER, "fuck off", null).maskedBody()).isEqualTo("**** off");
            FilterVerdict both = f.inspect(LOBBY, "fuck zorblax", null);
            assertThat(both.maskedBody()).as("global and room lists together").isEqualTo("**** *******");
            assertThat(f.roomRules()).singleElement().satisfies(r -> {
                assertThat(r.pattern()).isEqualTo(LOBBY);
                assertThat(r.terms()).containsExactly("zorblax");
            });
            f.addRoomTerm(LOBBY, "zorblax").get();
            assertThat(f.roomRules().get(0).terms()).as("no duplicate").containsExactly("zorblax");
        }
    }

    @Test
    void roomTerm_appliesWhateverTheRoomsSeverityThreshold_andKeepsTheGlobRuleThatGovernedTheRoom() throws Exception {
        try (ContentFilter f = filter(PolicyStore.inMemory())) {
            f.setRoomRules(List.of(new RoomRule("*@kids.example.org", true, Action.REJECT, Set.of(), Severity.HIGH,
                    "Keep it clean."))).get();
            f.addRoomTerm("a@kids.example.org", "zorblax").get();
            FilterVerdict v = f.inspect("a@kids.example.org", "zorblax", null);
            assertThat(v.action()).as("the glob's action, copied into the new exact rule").isEqualTo(Action.REJECT);
            assertThat(v.senderError()).isEqualTo("Keep it clean.");
            assertThat(f.inspect("a@kids.example.org", "damn", null)).as("the glob's threshold too")
                    .isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect("b@kids.example.org", "zorblax", null)).isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect("b@kids.example.org", "fuck", null).action()).isEqualTo(Action.REJECT);
        }
    }

    @Test
    void roomTerm_matchingACommonWord_keptWholeWordWithAWarning() throws Exception {
        try (ContentFilter f = filter(PolicyStore.inMemory())) {
            CompileReport report = f.addRoomTerm(LOBBY, "ass*").get();
            assertThat(report.warnings()).anySatisfy(w -> assertThat(w).contains("ass*", "whole-word"));
            assertThat(f.inspect(LOBBY, "I assume so", null)).isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect(LOBBY, "you ass", null).clean()).isFalse();
        }
    }

    @Test
    void badTerm_refusedClearly_rulesFileAndMatchingUnchanged(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("policies.properties");
        try (ContentFilter f = filter(new FilePolicyStore(file))) {
            f.addRoomTerm(LOBBY, "zorblax").get();
            List<RoomRule> before = f.roomRules();
            String stored = Files.readString(file);
            String[][] bad = {
                    {"", "must not be empty"},
                    {"   ", "must not be empty"},
                    {"69", "no letters"},
                    {"**", "nothing but wildcards"},
                    {"a;force", "one list entry"},
                    {"two\nlines", "one list entry"},
                    {"x".repeat(80), "longer than"},
                    {"\uD83C\uDF46head", "emoji"},
            };
            for (String[] b : bad) {
                assertThatThrownBy(() -> f.addRoomTerm(LOBBY, b[0]).get()).as(b[0])
                        .hasRootCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining(b[1]);
            }
            assertThatThrownBy(() -> f.addRoomTerm("*@muc.example.org", "plonk").get())
                    .hasRootCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("no wildcards");
            assertThatThrownBy(() -> f.addRoomTerm("a b@muc", "plonk").get())
                    .hasRootCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("room pattern");
            assertThat(f.roomRules()).isEqualTo(before);
            assertThat(Files.readString(file)).isEqualTo(stored);
            assertThat(f.inspect(LOBBY, "zorblax", null).clean()).isFalse();
        }
    }

    @Test
    void filePolicyStore_roundTripsTerms_readsOldFiles_restartKeepsCatching(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("policies.properties");
        FilePolicyStore store = new FilePolicyStore(file);
        List<RoomRule> rules = List.of(
                new RoomRule(LOBBY, true, Action.FLAG, Set.of("en"), Severity.LOW, "no", List.of("zorblax", "noob*",
                        "*hole", "with = and : and \\ and ü")),
                new RoomRule("*@muc.example.org", false, null, Set.of(), null, null));
        store.save(rules);
        assertThat(store.load()).isEqualTo(rules);

        Path old = dir.resolve("old.properties");
        Files.writeString(old, "room.1.pattern=lobby@muc.example.org\nroom.1.action=REJECT\n", StandardCharsets.UTF_8);
        assertThat(new FilePolicyStore(old).load()).singleElement()
                .satisfies(r -> assertThat(r.terms()).isEmpty())
                .satisfies(r -> assertThat(r.action()).isEqualTo(Action.REJECT));

        Path edited = dir.resolve("edited.properties");
        Files.writeString(edited, "room.1.pattern=lobby@muc.example.org\nroom.1.term.1=zorblax\nroom.1.term.2=69\n",
                StandardCharsets.UTF_8);
        try (ContentFilter f = filter(new FilePolicyStore(edited))) {
            assertThat(f.report().refused()).as("a hand-edited bad term is reported, naming its room")
                    .anySatisfy(x -> assertThat(x).startsWith("room lobby@muc.example.org: '69'"));
            assertThat(f.inspect(LOBBY, "zorblax", null).clean()).as("the good term still applies").isFalse();
        }

        Path live = dir.resolve("live.properties");
        try (ContentFilter f = filter(new FilePolicyStore(live))) {
            f.addRoomTerm(LOBBY, "zorblax").get();
        }
        assertThat(Files.readString(live)).contains("room.1.term.1=zorblax");
        try (ContentFilter f = filter(new FilePolicyStore(live))) {
            assertThat(f.inspect(LOBBY, "zorblax", null).clean()).as("after a restart").isFalse();
            assertThat(f.inspect(OTHER, "zorblax", null).clean()).isTrue();
        }
    }

    @Test
    void concurrentAdds_allKept_whileMessagesAreInspected() throws Exception {
        try (ContentFilter f = filter(PolicyStore.inMemory())) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        for (int r = 0; r < 4; r++) {
                            f.inspect("r" + r + "@muc", "plonka plonkb plonkc fuck", "plonkd");
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            reader.start();
            List<Thread> writers = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<CompileReport>> futures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int w = 0; w < 4; w++) {
                String room = "r" + w + "@muc";
                writers.add(new Thread(() -> {
                    try {
                        go.await();
                        for (String t : List.of("plonka", "plonkb", "plonkc", "plonkd")) {
                            // The compile queue is bounded: a refused change is retried, as a caller would.
                            while (true) {
                                CompletableFuture<CompileReport> c = f.addRoomTerm(room, t);
                                try {
                                    c.get();
                                    break;
                                } catch (ExecutionException e) {
                                    if (!(e.getCause() instanceof java.util.concurrent.RejectedExecutionException)) {
                                        throw e;
                                    }
                                }
                            }
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }));
            }
            writers.forEach(Thread::start);
            go.countDown();
            for (Thread t : writers) {
                t.join();
            }
            stop.set(true);
            reader.join();
            assertThat(failure.get()).isNull();
            assertThat(f.roomRules()).hasSize(4)
                    .allSatisfy(r -> assertThat(r.terms()).containsExactlyInAnyOrder("plonka", "plonkb", "plonkc", "plonkd"));
            for (int r = 0; r < 4; r++) {
                assertThat(f.inspect("r" + r + "@muc", "plonka plonkb plonkc", "plonkd").matches()).hasSize(4);
            }
            assertThat(f.inspect("r9@muc", "plonka", null)).isSameAs(FilterVerdict.CLEAN);
        }
    }

    /** Rooms without terms, and clean messages in rooms with terms, still allocate nothing. */
    @Test
    void cleanMessages_withRoomTermsElsewhereAndInTheRoom_allocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<String> lines = CleanCorpus.generate(1_000, 11);
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE)) {
            f.addRoomTerm(LOBBY, "zorblax").get();
            f.setRoomRules(new ArrayList<>(f.roomRules()) {{
                add(new RoomRule("*@games.example.org", true, null, Set.of(), null, null, List.of("plonkwort")));
            }}).get();
            String[] msgs = lines.stream().filter(l -> f.inspect(LOBBY, l, null).clean()
                    && f.inspect("x@games.example.org", l, null).clean()).toArray(String[]::new);
            assertThat(msgs.length).isGreaterThan(500);
            for (String room : List.of(OTHER, LOBBY, "x@games.example.org")) {
                int sink = 0;
                for (int warm = 0; warm < 30; warm++) {
                    for (String m : msgs) {
                        sink += f.inspect(room, m, "subject line").clean() ? 1 : 0;
                    }
                }
                long tid = Thread.currentThread().getId();
                long before = mx.getThreadAllocatedBytes(tid);
                for (int round = 0; round < 10; round++) {
                    for (String m : msgs) {
                        sink += f.inspect(room, m, "subject line").clean() ? 1 : 0;
                    }
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                assertThat(sink).isPositive();
                assertThat(allocated).as("bytes allocated in %s", room).isLessThan(4_096);
            }
        }
    }
}
