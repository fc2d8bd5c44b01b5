package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The room side of the archive (XEP-0313) with a source that answers only when the test lets it, as a slow database
 * would: room threads never wait for it, a full queue of archive reads is refused at once, a failed read is an
 * internal-server-error, and the result messages always reach the requester before the IQ result.
 */
class MucArchiveTest extends MucTestBase {
    static final String MAM = "urn:xmpp:mam:2";

    /** Waits for {@link #release} before answering each query with one message. */
    static final class GatedSource implements RoomArchiveSource {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger entered = new AtomicInteger();
        volatile Exception failure;

        @Override
        public Page query(Jid room, Query q) throws Exception {
            entered.incrementAndGet();
            if (!release.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            if (failure != null) {
                throw failure;
            }
            return new Page(List.of(new Message("id-1", "Alice", "alice@example.org/laptop", 1_700_000_000_000L,
                    "archived", null, null)), true, 1);
        }

        @Override
        public Edges edges(Jid room) {
            return new Edges(null, null);
        }
    }

    private XmlElement query(Jid from, String room, String id) {
        return XmlElement.builder("iq").attribute("from", from.toString()).attribute("to", room(room).toString())
                .attribute("type", "set").attribute("id", id)
                .child(XmlElement.builder("query", MAM).attribute("queryid", id).build()).build();
    }

    private static void waitFor(String what, java.util.function.BooleanSupplier ok) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ok.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    private static Predicate<XmlElement> iqWithId(String id) {
        return e -> e.name().equals("iq") && id.equals(e.attribute("id"));
    }

    @Test
    void aSlowArchiveRead_neverHoldsTheRoomThread_andResultsPrecedeTheFin() throws Exception {
        GatedSource source = new GatedSource();
        start(Map.of("mucscale.muc.shard-threads", "1"), b -> b.archive(source));
        createInstant(alice, "r", "Alice");
        join(bob, "r", "Bob");
        out.take(alice);
        send(query(bob, "r", "q1"));
        waitFor("the archive read to start", () -> source.entered.get() == 1);
        // the room's only thread goes on while the read waits
        send(groupchat(alice, "r", "said while the archive is read"));
        assertThat(out.take(bob)).anyMatch(e -> "said while the archive is read".equals(e.childText("body")))
                .noneMatch(iqWithId("q1"));
        source.release.countDown();
        waitFor("the archive answer", () -> out.peek(bob).stream().anyMatch(iqWithId("q1")));
        List<XmlElement> got = out.take(bob);
        assertThat(got).hasSize(2);
        assertThat(got.get(0).child("result", MAM).attribute("queryid")).isEqualTo("q1");
        assertThat(got.get(0).child("result", MAM).child("forwarded", "urn:xmpp:forward:0").child("message")
                .childText("body")).isEqualTo("archived");
        assertThat(got.get(1).attribute("type")).isEqualTo("result");
        assertThat(got.get(1).child("fin", MAM).attribute("complete")).isEqualTo("true");
    }

    @Test
    void aFullQueueOfArchiveReads_isRefusedAtOnce_andTheQueuedOnesAreAnswered() throws Exception {
        GatedSource source = new GatedSource();
        start(Map.of("mucscale.muc.archive-threads", "1", "mucscale.muc.archive-queue", "1"), b -> b.archive(source));
        createInstant(alice, "r", "Alice");
        out.take(alice);
        send(query(alice, "r", "running"));
        waitFor("the first read to start", () -> source.entered.get() == 1);
        send(query(alice, "r", "queued"));
        send(query(alice, "r", "refused"));
        XmlElement refused = out.take(alice).stream().filter(iqWithId("refused")).findFirst().orElseThrow();
        assertThat(errorCondition(refused)).isEqualTo("resource-constraint");
        source.release.countDown();
        waitFor("both answers", () -> out.peek(alice).stream().filter(e -> e.name().equals("iq")).count() == 2);
        assertThat(out.take(alice).stream().filter(e -> e.name().equals("iq")).map(e -> e.attribute("type")))
                .containsExactly("result", "result");
    }

    @Test
    void aFailedArchiveRead_isAnInternalServerError_withNoResults() throws Exception {
        GatedSource source = new GatedSource();
        source.failure = new java.sql.SQLException("connection refused");
        source.release.countDown();
        start(Map.of(), b -> b.archive(source));
        createInstant(alice, "r", "Alice");
        out.take(alice);
        send(query(alice, "r", "broken"));
        waitFor("the answer", () -> out.peek(alice).stream().anyMatch(iqWithId("broken")));
        List<XmlElement> got = out.take(alice);
        assertThat(got).hasSize(1);
        assertThat(errorCondition(got.get(0))).isEqualTo("internal-server-error");
    }
}
