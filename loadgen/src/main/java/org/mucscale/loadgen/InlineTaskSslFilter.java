package org.mucscale.loadgen;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.filter.ssl.SslFilter;

/**
 * MINA's {@link SslFilter} with the SSL engine's delegated tasks run on the session's I/O thread, so that a handshake's
 * records, its {@code SECURED} event and the first application write all happen on one thread, in order.
 *
 * <p>Why (issue 39, the flaky {@code StartTlsTest}): MINA 2.2.4's handler ({@code SSLHandlerG1}) runs every delegated
 * task on a shared two-thread executor, and the records that a task produces (a TLS 1.3 client's ChangeCipherSpec and
 * Finished) are handed to the session from that executor thread, one by one, by an unlocked loop. The I/O thread acks
 * the first record as soon as it is written and then fires {@code SECURED}; the generator answers {@code SECURED} by
 * writing its new stream header. When the executor thread is preempted between taking the Finished record off its
 * queue and handing it on (a 2-core machine under load), the stream header, encrypted with the application keys,
 * reaches the server before the Finished, the server cannot decrypt it ("Tag mismatch"), closes the connection, and
 * that login fails: "5 of 6 logins". With no {@code NEED_TASK} ever reported, MINA never uses its executor.
 *
 * <p>The cost: certificate checks and signatures run on the I/O thread instead of beside it; logins are CPU-bound on
 * this machine either way, and {@code connect.processors} adds I/O threads.
 */
final class InlineTaskSslFilter extends SslFilter {

    InlineTaskSslFilter(SSLContext context) {
        super(context);
    }

    @Override
    protected SSLEngine createEngine(IoSession session, InetSocketAddress addr) {
        return new InlineTaskEngine(super.createEngine(session, addr));
    }

    /** Delegates everything to the JDK's engine, but runs its delegated tasks inside the wrap or unwrap that asks. */
    static final class InlineTaskEngine extends SSLEngine {
        private final SSLEngine engine;

        InlineTaskEngine(SSLEngine engine) {
            super(engine.getPeerHost(), engine.getPeerPort());
            this.engine = engine;
        }

        @Override
        public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
            return runTasks(engine.wrap(srcs, offset, length, dst));
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
            return runTasks(engine.unwrap(src, dsts, offset, length));
        }

        /** Runs the tasks a result asks for and reports the status they lead to, as the next call would have. */
        private SSLEngineResult runTasks(SSLEngineResult r) {
            if (r.getHandshakeStatus() != HandshakeStatus.NEED_TASK) {
                return r;
            }
            for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                task.run();
            }
            HandshakeStatus after = engine.getHandshakeStatus();
            // the engine reports FINISHED only from the call that ends the handshake: keep that signal for MINA
            return new SSLEngineResult(r.getStatus(), after == HandshakeStatus.NOT_HANDSHAKING ? HandshakeStatus.FINISHED : after,
                    r.bytesConsumed(), r.bytesProduced());
        }

        @Override
        public Runnable getDelegatedTask() {
            return engine.getDelegatedTask();
        }

        @Override
        public void closeInbound() throws SSLException {
            engine.closeInbound();
        }

        @Override
        public boolean isInboundDone() {
            return engine.isInboundDone();
        }

        @Override
        public void closeOutbound() {
            engine.closeOutbound();
        }

        @Override
        public boolean isOutboundDone() {
            return engine.isOutboundDone();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return engine.getSupportedCipherSuites();
        }

        @Override
        public String[] getEnabledCipherSuites() {
            return engine.getEnabledCipherSuites();
        }

        @Override
        public void setEnabledCipherSuites(String[] suites) {
            engine.setEnabledCipherSuites(suites);
        }

        @Override
        public String[] getSupportedProtocols() {
            return engine.getSupportedProtocols();
        }

        @Override
        public String[] getEnabledProtocols() {
            return engine.getEnabledProtocols();
        }

        @Override
        public void setEnabledProtocols(String[] protocols) {
            engine.setEnabledProtocols(protocols);
        }

        @Override
        public SSLSession getSession() {
            return engine.getSession();
        }

        @Override
        public SSLSession getHandshakeSession() {
            return engine.getHandshakeSession();
        }

        @Override
        public void beginHandshake() throws SSLException {
            engine.beginHandshake();
        }

        @Override
        public HandshakeStatus getHandshakeStatus() {
            return engine.getHandshakeStatus();
        }

        @Override
        public void setUseClientMode(boolean mode) {
            engine.setUseClientMode(mode);
        }

        @Override
        public boolean getUseClientMode() {
            return engine.getUseClientMode();
        }

        @Override
        public void setNeedClientAuth(boolean need) {
            engine.setNeedClientAuth(need);
        }

        @Override
        public boolean getNeedClientAuth() {
            return engine.getNeedClientAuth();
        }

        @Override
        public void setWantClientAuth(boolean want) {
            engine.setWantClientAuth(want);
        }

        @Override
        public boolean getWantClientAuth() {
            return engine.getWantClientAuth();
        }

        @Override
        public void setEnableSessionCreation(boolean flag) {
            engine.setEnableSessionCreation(flag);
        }

        @Override
        public boolean getEnableSessionCreation() {
            return engine.getEnableSessionCreation();
        }

        @Override
        public SSLParameters getSSLParameters() {
            return engine.getSSLParameters();
        }

        @Override
        public void setSSLParameters(SSLParameters params) {
            engine.setSSLParameters(params);
        }

        @Override
        public String getApplicationProtocol() {
            return engine.getApplicationProtocol();
        }

        @Override
        public String getHandshakeApplicationProtocol() {
            return engine.getHandshakeApplicationProtocol();
        }

        @Override
        public void setHandshakeApplicationProtocolSelector(BiFunction<SSLEngine, List<String>, String> selector) {
            engine.setHandshakeApplicationProtocolSelector(selector);
        }

        @Override
        public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
            return engine.getHandshakeApplicationProtocolSelector();
        }
    }
}
