package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Persistent-room writes leave the room thread (issue 18, item 3): a repository that does not answer holds up no
 * room, changes of one room reach it in order with the newest last, a late write is reported, a failed one retried,
 * and a stop neither hangs on it nor forgets the newest change. The repository here is our own port held shut by a
 * gate, standing in for a stalled database; {@code RoomThreadStallTest} (engine/runtime) does the same through a real
 * MariaDB server that is stopped with SIGSTOP.
 */
class MucRoomStoreHandOffTest extends MucTestBase {

    /** Our own repository port, in memory, whose writes wait while the gate is shut. */
    static final class GatedRepository implements RoomRepository {
        final List<String> writes = new ArrayList<>();
        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger failNext = new AtomicInteger();
        final AtomicInteger interrupted = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);
        volatile StoredRoom last;

        void shut() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        @Override
        public Collection<StoredRoom> loadAll() {
            return List.of();
        }

        @Override
        public void save(StoredRoom room) {
            pass();
            synchronized (writes) {
                writes.add("save " + room.room().local() + " subject=" + room.subject());
            }
            last = room;
        }

        @Override
        public void delete(Jid room) {
            pass();
            synchronized (writes) {
                writes.add("delete " + room.local());
            }
        }

        private void pass() {
            entered.incrementAndGet();
            try {
                gate.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the database hung");
            }
            if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("the database refused the connection");
            }
        }

        List<String> writes() {
            synchronized (writes) {
                return new ArrayList<>(writes);
            }
        }
    }

    private GatedRepository startWith(GatedRepository repo, String... settings) {
        Map<String, String> s = new java.util.HashMap<>(Map.of("mucscale.muc.shard-threads", "1"));
        for (int i = 0; i < settings.length; i += 2) {
            s.put(settings[i], settings[i + 1]);
        }
        start(s, b -> b.repository(repo));
        return repo;
    }

    /** Waits for the room threads only: a held write must not hold up the test's own stanzas. */
    @Override
    void send(XmlElement stanza) {
        muc.process(stanza);
        muc.awaitQueues();
    }

    private void sendNow(XmlElement stanza) {
        send(stanza);
    }

    private XmlElement subject(Jid from, String room, String text) {
        return XmlElement.builder("message").attribute("from", from.toString()).attribute("to", room(room).toString())
                .attribute("type", "groupchat").textChild("subject", text).build();
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 20 s").isLessThan(deadline);
            LockSupport.parkNanos(2_000_000L);
        }
    }

    @Test
    void persistedChanges_whileTheRepositoryHangs_leaveEveryOtherRoomOfTheShardServing() {
        GatedRepository repo = startWith(new GatedRepository());
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1",
                "muc#roomconfig_membersonly", "1");
        createInstant(bob, "chat", "Bob");
        join(carol, "chat", "Carol");
        muc.awaitIdle();
        int before = repo.writes().size();

        repo.shut();
        // a subject change, an affiliation change and an invitation to a members-only room: each persists the room
        sendNow(subject(alice, "keep", "stalled topic"));
        assertThat(named(out.take(alice), "message")).anyMatch(m -> "stalled topic".equals(m.childText("subject")));
        XmlElement result = iq(alice, room("keep"), "set", admin("jid", "dave@example.org", "affiliation", "member"));
        assertThat(result.attribute("type")).isEqualTo("result");
        sendNow(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("keep").toString())
                .child(XmlElement.builder("x", NS_USER).child(XmlElement.builder("invite")
                        .attribute("to", "carol@example.org").build()).build()).build());
        assertThat(named(out.take(Jid.parse("carol@example.org")), "message")).hasSize(1);
        await(() -> repo.entered.get() > before);

        // the room thread that holds "keep" serves "chat" meanwhile
        out.take(carol);
        for (int i = 0; i < 50; i++) {
            muc.process(groupchat(bob, "chat", "while the database hangs " + i));
        }
        muc.awaitQueues();
        assertThat(named(out.take(carol), "message")).hasSize(50);
        assertThat(repo.writes()).hasSize(before);

        repo.open();
        muc.awaitIdle();
        StoredRoom stored = repo.last;
        assertThat(stored.subject()).isEqualTo("stalled topic");
        assertThat(stored.affiliations()).containsEntry(Jid.parse("dave@example.org"), Affiliation.MEMBER)
                .containsEntry(Jid.parse("carol@example.org"), Affiliation.MEMBER);
        // one write in flight, the newest state behind it: three changes, two writes
        assertThat(repo.writes()).hasSize(before + 2);
    }

    @Test
    void changes_ofOneRoom_reachTheRepositoryInOrder_theNewestLast() {
        GatedRepository repo = startWith(new GatedRepository());
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        muc.awaitIdle();
        int before = repo.writes().size();
        repo.shut();
        sendNow(subject(alice, "keep", "one"));
        await(() -> repo.entered.get() > before);
        for (String s : List.of("two", "three", "four")) {
            sendNow(subject(alice, "keep", s));
        }
        // destroyed and created again while the first write still hangs: the deletion and the new room follow it
        iq(alice, room("keep"), "set", XmlElement.builder("query", NS_OWNER)
                .child(XmlElement.builder("destroy").build()).build());
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        sendNow(subject(alice, "keep", "reborn"));
        repo.open();
        muc.awaitIdle();
        List<String> writes = repo.writes().subList(before, repo.writes().size());
        assertThat(writes.get(0)).isEqualTo("save keep subject=one");
        assertThat(writes.get(writes.size() - 1)).isEqualTo("save keep subject=reborn");
        assertThat(writes).doesNotContain("save keep subject=two", "save keep subject=three");
        assertThat(writes.size()).isLessThanOrEqualTo(2);
    }

    @Test
    void write_notConfirmedInTime_isReportedOverdue_andStillCompletes() {
        GatedRepository repo = startWith(new GatedRepository(), "mucscale.muc.room-store-timeout", "100");
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        muc.awaitIdle();
        repo.shut();
        sendNow(subject(alice, "keep", "late"));
        await(() -> muc.roomStoreOverdue() == 1);
        repo.open();
        muc.awaitIdle();
        assertThat(repo.last.subject()).isEqualTo("late");
        assertThat(muc.roomStoreOverdue()).isEqualTo(1);
    }

    @Test
    void failedWrite_isRetried_withTheRoomsNewestState() {
        GatedRepository repo = startWith(new GatedRepository());
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        muc.awaitIdle();
        repo.failNext.set(1);
        sendNow(subject(alice, "keep", "retried"));
        muc.awaitIdle();
        assertThat(repo.last.subject()).isEqualTo("retried");
        assertThat(repo.failNext.get()).isZero();
    }

    @Test
    void stop_whileTheRepositoryHangs_returns_andAbandonsTheWrite() {
        GatedRepository repo = startWith(new GatedRepository(), "mucscale.muc.room-store-timeout", "200");
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        muc.awaitIdle();
        int before = repo.entered.get();
        repo.shut();
        sendNow(subject(alice, "keep", "never stored"));
        await(() -> repo.entered.get() > before);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> muc.stop());
            // the writer blocked in the repository was interrupted, not left waiting
            await(() -> repo.interrupted.get() == 1);
            assertThat(repo.last.subject()).isNotEqualTo("never stored");
        } finally {
            repo.open();
        }
    }

    @Test
    void stop_whileAWriteHangs_stillWritesTheNewestChange_onceTheRepositoryAnswers() throws Exception {
        GatedRepository repo = startWith(new GatedRepository(), "mucscale.muc.room-store-timeout", "20000");
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1");
        muc.awaitIdle();
        int before = repo.entered.get();
        repo.shut();
        sendNow(subject(alice, "keep", "first"));
        await(() -> repo.entered.get() > before);
        sendNow(subject(alice, "keep", "newest"));
        Thread stopper = new Thread(() -> muc.stop(), "test-stopper");
        stopper.start();
        // the stop waits for the writes (the room threads are gone by then); the database answers meanwhile
        await(() -> muc.threads().stream().noneMatch(Thread::isAlive));
        repo.open();
        stopper.join(30_000);
        assertThat(stopper.isAlive()).isFalse();
        assertThat(repo.writes()).endsWith("save keep subject=first", "save keep subject=newest");
    }
}
