package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * Calls between two {@link AdminCalls} joined by a link that encodes and decodes each message as the wire does
 * (a loop-back: the Hazelcast path is ClusterAdminForwardingTest's). Pinned: an answer reaches the call it answers
 * only from the node called; a call ends when its node leaves (LEFT, outcome unknown), at the timeout, when this node
 * closes; a node of an older wire version or not a member is never sent anything; the handler runs once per call.
 */
class AdminCallsTest {
    private final List<String> members = new CopyOnWriteArrayList<>(List.of("a", "b"));
    private final AtomicInteger sent = new AtomicInteger();
    private AdminCalls a;
    private AdminCalls b;
    /** While set, messages to "b" are dropped (b gone, or slow). */
    private volatile boolean dropToB;

    private void start(long timeoutMs, int wireOfB) {
        a = new AdminCalls("a", (node, body) -> deliver("a", node, body), n -> n.equals("b") ? wireOfB : 2,
                () -> members, TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        b = new AdminCalls("b", (node, body) -> deliver("b", node, body), n -> 2, () -> members,
                TimeUnit.MILLISECONDS.toNanos(timeoutMs));
    }

    private void deliver(String from, String to, AdminCalls.Body body) {
        sent.incrementAndGet();
        Wire.Message m = Wire.decode(body.encode(1, sent.get()));
        AdminCalls target = to.equals("a") ? a : b;
        if (to.equals("b") && dropToB) {
            return;
        }
        if (m.kind() == Wire.ADMIN_CALL) {
            target.received(from, m.admin());
        } else {
            target.answered(from, m.admin());
        }
    }

    private static AdminCalls.Call get(String path) {
        return new AdminCalls.Call("shared-secret", "GET", path, null, null, null);
    }

    @Test
    void call_answeredByTheNodeCalled_onceEach() throws Exception {
        start(5_000, 2);
        AtomicInteger ran = new AtomicInteger();
        b.serve((from, c) -> {
            ran.incrementAndGet();
            return new AdminCalls.Answer(200, "application/json", "{\"from\":\"" + from + "\",\"path\":\"" + c.path()
                    + "\",\"who\":\"" + c.who() + "\"}", Map.of("X", "1"));
        });
        AdminCalls.Answer answer = a.call("b", get("/p1"));
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"from\":\"a\",\"path\":\"/p1\",\"who\":\"shared-secret\"}");
        assertThat(answer.headers()).containsEntry("X", "1");
        assertThat(a.call("b", get("/p2")).body()).contains("/p2");
        assertThat(ran).hasValue(2);
    }

    @Test
    void call_nodeLeavesBeforeAnswering_endsAtOnceAsOutcomeUnknown() throws Exception {
        start(30_000, 2);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        b.serve((from, c) -> {
            running.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new AdminCalls.Answer(200, null, "late", Map.of());
        });
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                a.call("b", get("/p"));
                return null;
            } catch (AdminCalls.Unanswered u) {
                return u;
            }
        });
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        members.remove("b");
        a.membersChanged(List.copyOf(members));
        AdminCalls.Unanswered u = (AdminCalls.Unanswered) outcome.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        assertThat(u.failure()).isEqualTo(AdminCalls.Failure.LEFT);
        assertThat(u.outcomeUnknown()).isTrue();
        release.countDown(); // its late answer finds no call waiting, and is dropped
    }

    @Test
    void call_noAnswer_endsAtTheTimeout_closingEndsTheOthers() throws Exception {
        start(300, 2);
        dropToB = true;
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.call("b", get("/p"))).isInstanceOfSatisfying(AdminCalls.Unanswered.class,
                u -> assertThat(u.failure()).isEqualTo(AdminCalls.Failure.TIMED_OUT));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_000L);
        CompletableFuture<AdminCalls.Failure> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                a.call("b", get("/p"));
                return null;
            } catch (AdminCalls.Unanswered u) {
                return u.failure();
            }
        });
        Thread.sleep(50);
        a.close();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isIn(AdminCalls.Failure.CLOSED, AdminCalls.Failure.TIMED_OUT);
        assertThatThrownBy(() -> a.call("b", get("/p"))).isInstanceOfSatisfying(AdminCalls.Unanswered.class,
                u -> assertThat(u.failure()).isEqualTo(AdminCalls.Failure.CLOSED));
    }

    @Test
    void call_olderWireVersionOrNotAMember_refusedWithNothingSent() {
        start(5_000, 1);
        assertThatThrownBy(() -> a.call("b", get("/p"))).isInstanceOfSatisfying(AdminCalls.Unanswered.class, u -> {
            assertThat(u.failure()).isEqualTo(AdminCalls.Failure.OLD_VERSION);
            assertThat(u.outcomeUnknown()).isFalse();
        });
        assertThatThrownBy(() -> a.call("c", get("/p"))).isInstanceOfSatisfying(AdminCalls.Unanswered.class,
                u -> assertThat(u.failure()).isEqualTo(AdminCalls.Failure.NOT_A_MEMBER));
        assertThat(sent).hasValue(0);
    }

    @Test
    void answer_fromAnotherNodeThanTheOneCalled_isIgnored() throws Exception {
        start(400, 2);
        dropToB = true;
        CompletableFuture<AdminCalls.Failure> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                a.call("b", get("/p"));
                return null;
            } catch (AdminCalls.Unanswered u) {
                return u.failure();
            }
        });
        Thread.sleep(100);
        a.answered("c", new Wire.Admin(1, null, new AdminCalls.Answer(200, null, "forged", Map.of())));
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(AdminCalls.Failure.TIMED_OUT);
    }

    @Test
    void call_noHandlerYet_answered503() throws Exception {
        start(5_000, 2);
        AdminCalls.Answer answer = a.call("b", get("/p"));
        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.headers()).containsEntry("Retry-After", "2");
        assertThat(answer.body()).contains("not running on node b");
    }
}
