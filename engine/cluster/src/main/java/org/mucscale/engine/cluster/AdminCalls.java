package org.mucscale.engine.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Room-administration calls between nodes (issue 37): a node that takes an operator's call for a room another node
 * owns sends it there ({@link Wire#ADMIN_CALL}) and waits for that node's answer ({@link Wire#ADMIN_ANSWER}). A call
 * and its answer are opaque here, an HTTP request in (who, method, path, query, body) and a response out (status,
 * type, body, headers): the runtime's admin API gives them meaning, so this module speaks no admin vocabulary and
 * the admin API none of the wire.
 *
 * <p>Invariants:
 * <ol>
 *   <li>At most once: a call is sent once, and the node it went to runs it at most once (the ordered link drops
 *       duplicates). Nothing here sends a call again; whoever calls decides, from the answer, whether a new call is
 *       safe.</li>
 *   <li>Every waiting call ends, by the first of: its answer; its node leaving this node's view ({@link
 *       Failure#LEFT}); this node closing ({@link Failure#CLOSED}); {@code mucscale.cluster.admin-timeout} ({@link
 *       Failure#TIMED_OUT}). After LEFT, CLOSED or TIMED_OUT the call may still have been applied there.</li>
 *   <li>A call goes only to a node whose published wire version reads it ({@link #WIRE_VERSION}); otherwise it is
 *       refused before anything is sent ({@link Failure#OLD_VERSION}).</li>
 *   <li>The handler runs on this class's own threads (at most {@link #THREADS}, {@link #QUEUE} calls waiting), never
 *       on a transport thread; a call beyond that is answered 503 at once.</li>
 * </ol>
 *
 * <p>Threads: {@code pending} is written by the calling threads (added, removed), completed by the transport's
 * dispatch (answers), the cluster thread (a view without the node) and {@link #close}; each future completes once.
 */
public final class AdminCalls implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminCalls.class);
    /** The first wire version with ADMIN_CALL and ADMIN_ANSWER. */
    static final int WIRE_VERSION = 2;
    static final int THREADS = 4;
    static final int QUEUE = 64;
    /** Calls this node waits for at once, at most (each holds an HTTP thread). */
    static final int MAX_PENDING = 1024;

    /** An operator's call, authenticated by the node that took it: {@code who} as its audit names the caller. */
    public record Call(String who, String method, String path, String query, String contentType, byte[] body) {
    }

    /** The answer of the node that ran the call. */
    public record Answer(int status, String contentType, String body, Map<String, String> headers) {
    }

    /** Runs a call another node sent (on this node, with the caller already authenticated); never throws. */
    @FunctionalInterface
    public interface Handler {
        Answer answer(String fromNode, Call call);
    }

    /** Why a call ended without an answer. */
    public enum Failure {
        /** The node left the view before answering: the call may have been applied there. */
        LEFT,
        /** No answer within the timeout: the call may have been applied there. */
        TIMED_OUT,
        /** This node is closing. */
        CLOSED,
        /** The node runs a build that cannot read the call; nothing was sent. */
        OLD_VERSION,
        /** Too many calls wait already; nothing was sent. */
        BUSY,
        /** The node is not a member (any more); nothing was sent. */
        NOT_A_MEMBER
    }

    /** A call that ended without an answer, with why. */
    public static final class Unanswered extends Exception {
        private final Failure failure;

        Unanswered(Failure failure, String message) {
            super(message, null, false, false);
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }

        /** Whether the call may have been applied (it was sent and not answered). */
        public boolean outcomeUnknown() {
            return failure == Failure.LEFT || failure == Failure.TIMED_OUT || failure == Failure.CLOSED;
        }
    }

    /** Sends one message (built from its link's epoch and sequence number) on the ordered link to a node. */
    interface Link {
        void send(String node, Body body);
    }

    /** A message body waiting for its header. */
    interface Body {
        byte[] encode(long epoch, long seq);
    }

    private record Pending(String node, CompletableFuture<Answer> answer) {
    }

    private final String local;
    private final Link link;
    /** A node's published wire version (-1: unknown). */
    private final ToIntFunction<String> wireOf;
    /** The transport's current members. */
    private final java.util.function.Supplier<List<String>> members;
    private final long timeoutNanos;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor runner = new ThreadPoolExecutor(THREADS, THREADS, 10, TimeUnit.SECONDS,
            new java.util.concurrent.ArrayBlockingQueue<>(QUEUE), r -> {
                Thread t = new Thread(r, "mucscale-admin-call");
                t.setDaemon(true);
                return t;
            });
    private volatile Handler handler;
    private volatile boolean closed;

    AdminCalls(String local, Link link, ToIntFunction<String> wireOf, java.util.function.Supplier<List<String>> members,
               long timeoutNanos) {
        this.local = local;
        this.link = link;
        this.wireOf = wireOf;
        this.members = members;
        this.timeoutNanos = timeoutNanos;
        runner.allowCoreThreadTimeOut(true);
    }

    /** This node's id (a call to it is no call: the caller runs it itself). */
    public String localNode() {
        return local;
    }

    /** Sets who answers the calls other nodes send here (until then they are answered 503). */
    public void serve(Handler h) {
        this.handler = h;
    }

    /**
     * Sends {@code call} to {@code node} and waits for its answer, at most the timeout. Blocks the calling thread
     * (an HTTP thread), never a room or transport thread.
     */
    public Answer call(String node, Call call) throws Unanswered {
        if (closed) {
            throw new Unanswered(Failure.CLOSED, "this node is leaving the cluster");
        }
        int wire = wireOf.applyAsInt(node);
        if (wire < WIRE_VERSION) {
            throw new Unanswered(Failure.OLD_VERSION, "cluster node " + node + " runs a build that cannot take "
                    + "administration calls (wire version " + (wire < 0 ? "unknown" : wire) + ")");
        }
        if (!members.get().contains(node)) {
            throw new Unanswered(Failure.NOT_A_MEMBER, "cluster node " + node + " is not a member any more");
        }
        if (pending.size() >= MAX_PENDING) {
            throw new Unanswered(Failure.BUSY, MAX_PENDING + " administration calls to other nodes wait already");
        }
        long id = ids.incrementAndGet();
        CompletableFuture<Answer> f = new CompletableFuture<>();
        pending.put(id, new Pending(node, f));
        try {
            link.send(node, (epoch, seq) -> Wire.adminCall(epoch, seq, id, call));
            if (!members.get().contains(node)) {
                // it left between the check and the send: the view change may have been reported before the put
                membersChanged(members.get());
            }
            return f.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new Unanswered(Failure.TIMED_OUT, "cluster node " + node + " did not answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (mucscale.cluster.admin-timeout)");
        } catch (ExecutionException e) {
            Unanswered u = (Unanswered) e.getCause();
            throw new Unanswered(u.failure(), u.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unanswered(Failure.CLOSED, "interrupted while waiting for cluster node " + node);
        } finally {
            pending.remove(id);
        }
    }

    /** An ADMIN_CALL from {@code fromNode} (on the transport's dispatch: only enqueues). */
    void received(String fromNode, Wire.Admin m) {
        try {
            runner.execute(() -> {
                Handler h = handler;
                Answer a;
                try {
                    a = h == null ? unavailable("the administration API is not running on node " + local)
                            : h.answer(fromNode, m.call());
                } catch (RuntimeException e) {
                    LOG.warn("an administration call from {} failed here", fromNode, e);
                    a = new Answer(500, null, "{\"status\":500,\"error\":\"internal-error\",\"message\":\"the call "
                            + "failed on node " + local + "\"}", Map.of());
                }
                Answer answer = a;
                link.send(fromNode, (epoch, seq) -> Wire.adminAnswer(epoch, seq, m.callId(), answer));
            });
        } catch (RejectedExecutionException e) {
            Answer busy = unavailable("node " + local + " has too many administration calls waiting");
            link.send(fromNode, (epoch, seq) -> Wire.adminAnswer(epoch, seq, m.callId(), busy));
        }
    }

    private static Answer unavailable(String why) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Retry-After", "2");
        return new Answer(503, null, "{\"status\":503,\"error\":\"unavailable\",\"message\":\"" + why + "\"}", h);
    }

    /** An ADMIN_ANSWER (on the transport's dispatch). One for a call no longer waited for is dropped. */
    void answered(String fromNode, Wire.Admin m) {
        Pending p = pending.get(m.callId());
        if (p != null && p.node().equals(fromNode)) {
            p.answer().complete(m.answer());
        }
    }

    /** The view changed: calls to nodes no longer in it end (LEFT). */
    void membersChanged(List<String> members) {
        pending.values().forEach(p -> {
            if (!members.contains(p.node())) {
                p.answer().completeExceptionally(new Unanswered(Failure.LEFT, "cluster node " + p.node()
                        + " left before answering; the change may have been applied there"));
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        pending.values().forEach(p -> p.answer().completeExceptionally(new Unanswered(Failure.CLOSED,
                "this node left the cluster before node " + p.node() + " answered; the change may have been applied")));
        runner.shutdown();
    }
}
