package org.mucscale.openfire;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jivesoftware.util.cache.ClusterTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine message between two Openfire nodes: {@link OpenfireClusterTransport#send} wraps the bytes in this task
 * and hands it to {@code CacheFactory.doClusterTask(task, nodeId)}; Openfire's hazelcast plugin serializes it, runs
 * it on the target node, and {@link #run()} hands the bytes to the transport installed there.
 *
 * <p>How the receiving node finds this class: the hazelcast plugin deserializes with its {@code ClusterClassLoader},
 * which tries the hazelcast plugin's own class loader (and through it Openfire's core) and then the class loader of
 * every other loaded plugin, so the receiving node loads this class from its own mucscale plugin. On a node where
 * mucscale is not loaded at all the class is not found and Hazelcast logs the failure there; on a node where the
 * plugin is loaded but its engine is not running (starting, stopping, reloading) {@link #run()} finds no receiver,
 * counts the message as undelivered and says so once at WARN. {@code docs/openfire.md} has the details.
 *
 * <p>Wire format (plain {@link ObjectOutput} calls, no Openfire helper, so this class has no static dependency on
 * Openfire's serialization strategy):
 * <pre>
 *   UTF   sender node id (modified UTF-8, as DataOutput.writeUTF)
 *   int   message length n (0..MAX_MESSAGE_BYTES)
 *   byte  message[n]
 * </pre>
 *
 * <p>Concurrency: Hazelcast runs tasks on its executor threads, several at once; the receiver is a volatile
 * registration and must accept calls from any thread (the engine restores order itself).
 */
public final class ClusterMessageTask implements ClusterTask<Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMessageTask.class);

    /** Largest message accepted when reading, so a corrupt length cannot ask for gigabytes. */
    static final int MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

    /** Who takes the messages that arrive on this node. */
    @FunctionalInterface
    interface Receiver {
        void received(String fromNode, byte[] message);
    }

    private static volatile Receiver installed;
    private static final AtomicLong UNDELIVERED = new AtomicLong();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private String fromNode;
    private byte[] message;

    /** For deserialization only (Externalizable needs a public no-argument constructor). */
    public ClusterMessageTask() {
    }

    ClusterMessageTask(String fromNode, byte[] message) {
        this.fromNode = fromNode;
        this.message = message;
    }

    /** Makes {@code receiver} the one that gets this node's incoming messages (one at a time per node). */
    static synchronized void install(Receiver receiver) {
        installed = receiver;
    }

    /** Removes {@code receiver} if it is still the installed one (a newer one is left alone). */
    static synchronized void uninstall(Receiver receiver) {
        if (installed == receiver) {
            installed = null;
        }
    }

    /** Messages that arrived while no receiver was installed, since this class was loaded. */
    static long undelivered() {
        return UNDELIVERED.get();
    }

    @Override
    public void run() {
        Receiver r = installed;
        if (r == null) {
            UNDELIVERED.incrementAndGet();
            if (WARNED.compareAndSet(false, true)) {
                LOG.warn("MUC Scale got a cluster message from node {}, but MUC Scale's engine is not running on this "
                        + "node (starting, stopping, reloading, or it failed to start); the message is dropped. Later "
                        + "drops are counted, not logged.", fromNode);
            }
            return;
        }
        r.received(fromNode, message);
    }

    @Override
    public Void getResult() {
        return null;
    }

    @Override
    public void writeExternal(ObjectOutput out) throws IOException {
        out.writeUTF(fromNode);
        out.writeInt(message.length);
        out.write(message);
    }

    @Override
    public void readExternal(ObjectInput in) throws IOException {
        fromNode = in.readUTF();
        int n = in.readInt();
        if (n < 0 || n > MAX_MESSAGE_BYTES) {
            throw new InvalidObjectException("mucscale cluster message of " + n + " bytes from " + fromNode
                    + " (allowed 0.." + MAX_MESSAGE_BYTES + ")");
        }
        message = new byte[n];
        in.readFully(message);
    }

    String fromNode() {
        return fromNode;
    }

    byte[] message() {
        return message;
    }
}
