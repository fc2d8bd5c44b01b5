package org.mucscale.standalone;

import java.util.List;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;

/**
 * A cluster transport that passes everything to a real one; the tests' wrappers override only what they change (a
 * delayed, dropped or rewritten message, a held-back view), so the bytes and views they leave alone are the real ones.
 */
abstract class ForwardingTransport implements ClusterTransport {
    protected final ClusterTransport real;

    ForwardingTransport(ClusterTransport real) {
        this.real = real;
    }

    @Override
    public String localNode() {
        return real.localNode();
    }

    @Override
    public List<String> members() {
        return real.members();
    }

    @Override
    public void send(String node, byte[] message) {
        real.send(node, message);
    }

    @Override
    public ClusterMap map(String name) {
        return real.map(name);
    }

    @Override
    public void start(Listener listener) {
        real.start(listener);
    }

    @Override
    public void stop() {
        real.stop();
    }

    @Override
    public boolean running() {
        return real.running();
    }
}
