package org.mucscale.standalone;

import com.codahale.metrics.Gauge;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IdleStatus;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An XEP-0114 external component connection over Apache MINA: opens the stream, authenticates with the handshake
 * (SHA-1 of stream id + secret), hands every inbound stanza to the engine, writes the engine's outbound stanzas
 * (a {@link Delivery}), keeps the connection alive with whitespace, and reconnects with exponential back-off.
 *
 * <p>Concurrency: MINA's single I/O processor thread owns each session's decoder and handshake state and calls the
 * {@link StanzaHandler} (the engine hands work to its room threads, so this thread is never held long). Any room
 * thread may call {@link #deliver}/{@link #send}/{@link #flush}; they go to {@link OutboundStanzas}, which batches per
 * thread and whose header says who owns what there. Reconnects run on one scheduler thread, which owns
 * {@code reconnectAttempt}; the link's flags are volatile, written by the connecting and closing threads and, for
 * {@code heldElsewhere} and {@code standbyLogged}, the I/O thread. Counters are adders.
 * Outbound bytes are bounded by {@code writeQueueMaxBytes}; beyond it the configured overflow policy applies and the
 * stanza is counted ({@link ComponentStats#outboundDroppedQueueFull()}) and logged, never silently dropped.
 *
 * <p>Back-pressure (issue 18): a slow server must not make the link drop stanzas for every occupant. When a room
 * thread hands over a batch and more than {@code writeQueueHighWaterBytes} wait in MINA's queue, that thread pauses
 * (so its shard drains no more commands, and its own bounded queue refuses senders with resource-constraint) until
 * the queue is down to half of the high-water mark, woken by MINA's {@code messageSent}. A pause is bounded by
 * {@code writeQueueMaxWait}, after which the overflow policy above applies; it ends at once when the stream closes or
 * the service stops ({@link #stopBackPressure}). Threads that do not batch (the I/O thread) never pause.
 */
public final class ComponentConnection implements Delivery, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ComponentConnection.class);
    private static final String STREAMS_NS = "urn:ietf:params:xml:ns:xmpp-streams";
    private static final String ATTEMPT = "mucscale.attempt";

    /** Receives each inbound stanza on the I/O thread; must hand real work elsewhere. */
    @FunctionalInterface
    public interface StanzaHandler {
        void stanza(XmlElement stanza);
    }

    private final ComponentConfig config;
    private final NioSocketConnector connector;
    private final ScheduledExecutorService scheduler;
    private final byte[] streamHeader;
    private volatile StanzaHandler handler;
    private final OutboundStanzas outbound;
    private volatile boolean stopping;
    private volatile boolean started;
    private int reconnectAttempt; // scheduler thread only
    /** Started by {@link #connectInBackground}: a cluster node that may stand by while another node holds the link. */
    private volatile boolean background;
    /** The last attempt was refused because another node holds the link (stream error conflict). */
    private volatile boolean heldElsewhere;
    /** Standing by has been logged once since the link was last up (later refusals log at debug). */
    private volatile boolean standbyLogged;

    private final LongAdder stanzasReceived = new LongAdder();
    private final LongAdder streamErrorsSent = new LongAdder();
    private final LongAdder streamErrorsReceived = new LongAdder();
    private final LongAdder handshakes = new LongAdder();
    private final LongAdder connectFailures = new LongAdder();
    private final LongAdder handlerFailures = new LongAdder();

    public ComponentConnection(ComponentConfig config) {
        this.config = config;
        this.outbound = new OutboundStanzas(config);
        this.streamHeader = ("<?xml version='1.0'?><stream:stream xmlns='" + OutboundStanzas.COMPONENT_NS
                + "' xmlns:stream='http://etherx.jabber.org/streams' to='" + config.domain() + "'>")
                .getBytes(StandardCharsets.UTF_8);
        this.connector = new NioSocketConnector(1);
        connector.setConnectTimeoutMillis(config.connectTimeout().toMillis());
        connector.getSessionConfig().setTcpNoDelay(true);
        connector.getSessionConfig().setKeepAlive(true);
        connector.getSessionConfig().setIdleTime(IdleStatus.WRITER_IDLE,
                (int) Math.max(1, config.keepaliveInterval().toSeconds()));
        connector.setHandler(new Handler());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mucscale-component-" + config.domain());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects and authenticates once, blocking until the handshake is done; afterwards a lost connection is
     * re-established in the background with back-off. Throws with an operator-readable message when the first
     * attempt fails (the caller decides whether to exit); nothing keeps running then.
     */
    public void connect(StanzaHandler stanzaHandler) throws ComponentException {
        if (started) {
            throw new IllegalStateException("already connected once");
        }
        this.handler = stanzaHandler;
        long waitMs = config.connectTimeout().toMillis() + config.handshakeTimeout().toMillis() + 1000;
        CompletableFuture<IoSession> attempt = attempt();
        try {
            attempt.get(waitMs, TimeUnit.MILLISECONDS);
            started = true;
        } catch (ExecutionException e) {
            shutdownQuietly();
            if (e.getCause() instanceof ComponentException ce) {
                throw ce;
            }
            throw new ComponentException("cannot connect to " + where() + ": " + e.getCause(), true);
        } catch (TimeoutException e) {
            shutdownQuietly();
            throw new ComponentException("the server at " + where() + " did not complete the component handshake "
                    + "within " + waitMs + " ms", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdownQuietly();
            throw new ComponentException("interrupted while connecting to " + where(), true);
        }
    }

    /**
     * Connects in the background and never gives up: attempts repeat with the reconnect back-off until one succeeds,
     * and a lost stream is re-established as after {@link #connect}. For a cluster node, which may start while another
     * node holds the server's only link for this component (Prosody allows one): it takes the link over when the
     * holder's stream goes away.
     */
    public void connectInBackground(StanzaHandler stanzaHandler) {
        if (started) {
            throw new IllegalStateException("already connected once");
        }
        this.handler = stanzaHandler;
        started = true;
        background = true;
        attempt().whenComplete((session, failure) -> {
            if (failure != null) {
                if (!heldElsewhere) {
                    LOG.info("component {}: no link to {} yet ({}); retrying in the background", config.domain(),
                            where(), failure.getMessage());
                }
                scheduleReconnect();
            } else {
                scheduler.execute(() -> reconnectAttempt = 0);
            }
        });
    }

    /** True while a stream is up and authenticated. */
    public boolean isReady() {
        return outbound.stream() != null;
    }

    public String domain() {
        return config.domain();
    }

    public ComponentStats stats() {
        return new ComponentStats(stanzasReceived.sum(), outbound.stanzasSent(), outbound.bytesSent(),
                outbound.droppedQueueFull(), outbound.droppedDisconnected(), streamErrorsSent.sum(),
                streamErrorsReceived.sum(), handshakes.sum(), connectFailures.sum(), handlerFailures.sum(),
                outbound.queuedBytes(), outbound.writeRequests(), outbound.backPressurePauses(),
                outbound.backPressureTimeouts());
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        outbound.deliver(stanza, recipient);
    }

    /**
     * Records, for every timed message ({@link RenderedStanza#arrivalNs()}), the time from its arrival to the moment
     * MINA reports the write holding its copies done (handed to the socket): one sample per message and write.
     */
    public void recordWriteLatency(java.util.function.LongConsumer recorder) {
        outbound.recordWriteLatency(recorder);
    }

    @Override
    public void send(XmlElement stanza) {
        outbound.send(stanza);
    }

    /**
     * Enqueues what this thread gathered as one write, then pauses while the write queue is above its high-water mark
     * (back-pressure); the first call makes the calling thread batch.
     */
    @Override
    public void flush() {
        outbound.flush();
    }

    /** Where the link's drops and the queue depth are counted besides {@link #stats} (dashboard, Prometheus). */
    public void metrics(MucScaleMetrics m) {
        outbound.metrics(m);
        if (m != null) {
            m.registry().register("mucscale.standalone.link.queued-bytes", (Gauge<Long>) outbound::queuedBytes);
            m.registry().register("mucscale.standalone.link.back-pressure.pauses",
                    (Gauge<Long>) outbound::backPressurePauses);
        }
    }

    /**
     * The service is stopping: room threads paused for the write queue go on now, and none pauses again (what no
     * longer fits meets the overflow policy). Called before the engine stops, so a stop never waits for a slow server.
     */
    public void stopBackPressure() {
        outbound.stopBackPressure();
    }

    /** The baseline of the delivery benchmark: enqueue an already encoded stanza, with the same admission. */
    void writeForBenchmark(IoBuffer encoded) {
        outbound.writeForBenchmark(encoded);
    }

    /** Closes the stream politely and stops reconnecting. */
    @Override
    public void close() {
        stopping = true;
        stopBackPressure();
        IoSession s = outbound.takeStream();
        if (s != null && s.isConnected()) {
            s.write(IoBuffer.wrap("</stream:stream>".getBytes(StandardCharsets.UTF_8)));
            s.closeOnFlush().awaitUninterruptibly(2000);
        }
        shutdownQuietly();
    }

    private void shutdownQuietly() {
        stopping = true;
        outbound.stopBackPressure();
        scheduler.shutdownNow();
        connector.dispose(true);
    }

    private String where() {
        return config.serverHost() + ":" + config.serverPort();
    }

    /** One connection attempt; completes with the authenticated session or a {@link ComponentException}. */
    private CompletableFuture<IoSession> attempt() {
        heldElsewhere = false; // until this attempt's stream error says so
        CompletableFuture<IoSession> result = new CompletableFuture<>();
        ConnectFuture cf;
        try {
            cf = connector.connect(new InetSocketAddress(config.serverHost(), config.serverPort()));
        } catch (RuntimeException e) {
            result.completeExceptionally(new ComponentException("cannot connect to " + where() + ": " + e, true));
            return result;
        }
        cf.addListener(f -> {
            ConnectFuture done = (ConnectFuture) f;
            if (!done.isConnected()) {
                Throwable t = done.getException();
                String why = t == null ? "connection failed" : (t.getMessage() == null ? t.toString() : t.getMessage());
                result.completeExceptionally(new ComponentException("cannot connect to " + where() + ": " + why, true));
                return;
            }
            IoSession session = done.getSession();
            // sessionOpened may already have run; the attempt is attached before anything is read.
            Attempt a = attemptOf(session);
            a.result = result;
            if (a.pendingFailure != null) {
                result.completeExceptionally(a.pendingFailure);
            } else if (a.authenticated) {
                result.complete(session);
            }
        });
        result.whenComplete((session, failure) -> {
            if (failure != null) {
                connectFailures.increment();
            }
        });
        return result;
    }

    private Attempt attemptOf(IoSession session) {
        Attempt a = (Attempt) session.getAttribute(ATTEMPT);
        if (a == null) {
            Attempt created = new Attempt();
            a = (Attempt) session.setAttributeIfAbsent(ATTEMPT, created);
            if (a == null) {
                a = created;
            }
        }
        return a;
    }

    private void scheduleReconnect() {
        if (stopping) {
            return;
        }
        try {
            scheduler.execute(this::reconnectLater);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // shutting down
        }
    }

    private void reconnectLater() {
        long initial = config.reconnectInitialDelay().toMillis();
        long max = config.reconnectMaxDelay().toMillis();
        // A cluster node standing by while another node holds the server's only link does not back off: the holder
        // may die at any moment, and each doubling would add to the time its rooms have no link (up to the maximum).
        boolean standingBy = background && heldElsewhere;
        int shift = Math.min(reconnectAttempt, 30);
        long delay = standingBy ? initial : Math.min(max, initial << shift);
        // +-20 % jitter so many components behind one server do not reconnect in lock step
        delay = Math.max(1, (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble())));
        if (!standingBy) {
            reconnectAttempt++;
            LOG.info("component {}: reconnecting to {} in {} ms (attempt {})", config.domain(), where(), delay,
                    reconnectAttempt);
        }
        scheduler.schedule(() -> {
            if (stopping) {
                return;
            }
            attempt().whenComplete((session, failure) -> {
                if (failure != null) {
                    if (!heldElsewhere) {
                        LOG.warn("component {}: reconnect failed: {}", config.domain(), failure.getMessage());
                    }
                    scheduleReconnect();
                } else {
                    scheduler.execute(() -> reconnectAttempt = 0);
                }
            });
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** Per-session state; touched only by the session's I/O thread (and the connect listener, before reads). */
    private final class Attempt {
        final XmppStreamDecoder decoder = new XmppStreamDecoder(config.maxStanzaBytes());
        volatile CompletableFuture<IoSession> result;
        volatile ComponentException pendingFailure;
        volatile boolean authenticated;
        String streamId;

        void fail(ComponentException e) {
            CompletableFuture<IoSession> r = result;
            if (r != null) {
                r.completeExceptionally(e);
            } else {
                pendingFailure = e;
            }
        }

        void succeed(IoSession session) {
            authenticated = true;
            CompletableFuture<IoSession> r = result;
            if (r != null) {
                r.complete(session);
            }
        }
    }

    private final class Handler extends IoHandlerAdapter implements XmppStreamDecoder.Listener {
        private IoSession current; // the session whose bytes are being decoded (I/O thread only)

        @Override
        public void sessionCreated(IoSession session) {
            attemptOf(session);
        }

        @Override
        public void sessionOpened(IoSession session) {
            session.write(IoBuffer.wrap(streamHeader));
            long timeoutMs = config.handshakeTimeout().toMillis();
            try {
                scheduler.schedule(() -> {
                    Attempt a = attemptOf(session);
                    if (a != null && !a.authenticated && session.isConnected()) {
                        a.fail(new ComponentException("the server at " + where() + " did not complete the component "
                                + "handshake within " + timeoutMs + " ms", true));
                        session.closeNow();
                    }
                }, timeoutMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                session.closeNow();
            }
        }

        @Override
        public void messageReceived(IoSession session, Object message) {
            Attempt a = attemptOf(session);
            if (a.decoder.isClosed()) {
                return; // the stream already ended or broke a rule; the session is closing
            }
            IoBuffer in = (IoBuffer) message;
            current = session;
            try {
                a.decoder.feed(in.buf(), this);
            } catch (XmppStreamDecoder.StreamErrorException e) {
                streamErrorsSent.increment();
                LOG.warn("component {}: closing the stream to {}: {} ({}); will reconnect", config.domain(), where(),
                        e.condition(), e.getMessage());
                String error = "<stream:error><" + e.condition() + " xmlns='" + STREAMS_NS + "'/><text xmlns='"
                        + STREAMS_NS + "'>" + org.mucscale.engine.stanza.Xml.escapeText(e.getMessage())
                        + "</text></stream:error></stream:stream>";
                session.write(IoBuffer.wrap(error.getBytes(StandardCharsets.UTF_8)));
                session.closeOnFlush();
                a.fail(new ComponentException("the stream from " + where() + " broke a rule: " + e.condition() + ": "
                        + e.getMessage(), true));
            } finally {
                current = null;
            }
        }

        @Override
        public void streamOpened(Map<String, String> attributes) {
            IoSession session = current;
            Attempt a = attemptOf(session);
            a.streamId = attributes.get("id");
            if (a.streamId == null) {
                a.fail(new ComponentException("the server at " + where() + " opened a stream without an id", false));
                session.closeNow();
                return;
            }
            String digest = sha1Hex(a.streamId + config.secret());
            session.write(IoBuffer.wrap(("<handshake>" + digest + "</handshake>").getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public void element(XmlElement element) {
            IoSession session = current;
            Attempt a = attemptOf(session);
            if (a.authenticated) {
                if ("error".equals(element.name()) && XmppStreamDecoder.STREAM_NS.equals(element.namespace())) {
                    streamError(session, a, element);
                    return;
                }
                stanzasReceived.increment();
                try {
                    handler.stanza(element);
                } catch (RuntimeException e) {
                    handlerFailures.increment();
                    LOG.error("component {}: the engine failed on a <{}> stanza (id {}); the stream goes on",
                            config.domain(), element.name(), element.attribute("id"), e);
                }
                return;
            }
            if ("handshake".equals(element.name())) {
                handshakes.increment();
                outbound.streamUp(session);
                standbyLogged = false; // a later stand-by is announced again (heldElsewhere: reset per attempt)
                LOG.info("component {}: connected to {}", config.domain(), where());
                a.succeed(session);
            } else if ("error".equals(element.name()) && XmppStreamDecoder.STREAM_NS.equals(element.namespace())) {
                streamError(session, a, element);
            } else {
                LOG.warn("component {}: ignoring <{}> received before the handshake completed", config.domain(),
                        element.name());
            }
        }

        private void streamError(IoSession session, Attempt a, XmlElement error) {
            streamErrorsReceived.increment();
            String condition = null;
            String text = null;
            for (XmlElement child : error.elements()) {
                if ("text".equals(child.name())) {
                    text = child.text();
                } else if (condition == null) {
                    condition = child.name();
                }
            }
            String message = switch (condition == null ? "" : condition) {
                case "not-authorized" -> "the server refused the component secret for " + config.domain();
                case "host-unknown", "improper-addressing" -> "the server at " + where()
                        + " has no component configured for " + config.domain() + " (stream error " + condition + ")";
                case "conflict" -> "the server at " + where() + " already has a component connected as "
                        + config.domain() + " (stream error conflict)";
                default -> "the server at " + where() + " closed the stream: " + condition
                        + (text == null ? "" : ": " + text);
            };
            boolean permanent = "not-authorized".equals(condition) || "host-unknown".equals(condition);
            heldElsewhere = background && "conflict".equals(condition);
            if (!heldElsewhere) {
                LOG.error("component {}: {}", config.domain(), message);
            } else if (!standbyLogged) {
                standbyLogged = true;
                LOG.info("component {}: {}; another cluster node holds the link: standing by, trying every {} ms to "
                        + "take it over", config.domain(), message, config.reconnectInitialDelay().toMillis());
            } else {
                LOG.debug("component {}: {}; still standing by", config.domain(), message);
            }
            a.fail(new ComponentException(message, !permanent));
            session.closeNow();
        }

        @Override
        public void streamClosed() {
            IoSession session = current;
            LOG.info("component {}: the server closed the stream", config.domain());
            session.write(IoBuffer.wrap("</stream:stream>".getBytes(StandardCharsets.UTF_8)));
            session.closeOnFlush();
        }

        @Override
        public void messageSent(IoSession session, Object message) {
            outbound.sent(session);
        }

        @Override
        public void sessionIdle(IoSession session, IdleStatus status) {
            if (status == IdleStatus.WRITER_IDLE) {
                session.write(IoBuffer.wrap(new byte[] {' '}));
            }
        }

        @Override
        public void exceptionCaught(IoSession session, Throwable cause) {
            LOG.warn("component {}: connection to {} failed: {}", config.domain(), where(), cause.toString());
            session.closeNow();
        }

        @Override
        public void sessionClosed(IoSession session) {
            Attempt a = attemptOf(session);
            boolean wasReady = outbound.streamClosed(session); // paused room threads go on to meet the reconnect
            if (a != null && !a.authenticated) {
                a.fail(new ComponentException("the server at " + where() + " closed the connection before the "
                        + "component handshake completed", true));
            }
            if (wasReady && !stopping) {
                LOG.warn("component {}: lost the connection to {}", config.domain(), where());
                scheduleReconnect();
            }
        }
    }

    static String sha1Hex(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(40);
            for (byte b : d) {
                sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }
}
