package org.mucscale.standalone;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.UUID;

/**
 * One message between nodes as Hazelcast carries it. Hazelcast writes its own header first (this factory's id and
 * the type), then these fields:
 * <pre>
 *  byte 0     1                      9                      17         21
 *       +-----+----------------------+----------------------+----------+----------------------+
 *       |kind | sender node id, high | sender node id, low  | length n | payload (n bytes)    |
 *       |  1  | 8 (long)             | 8 (long)             | 4 (int)  | n                    |
 *       +-----+----------------------+----------------------+----------+----------------------+
 * </pre>
 * {@code kind}: {@link #DATA} (the engine's bytes, for {@link org.mucscale.engine.cluster.ClusterTransport.Listener#received}), {@link #HELLO} (the sender
 * listens on its inbox; answer once), {@link #HELLO_BACK} (the answer), {@link #FLUSH} (the sender stops once
 * everything it sent before has arrived; answer), {@link #FLUSHED} (the answer). Only {@code DATA} has a
 * payload. Node ids are UUIDs.
 *
 * <p>Threads: one envelope is built by the thread that sends it and read by the Hazelcast event thread that receives
 * it; it is not changed after it is handed to Hazelcast.
 */
final class ClusterEnvelope implements IdentifiedDataSerializable {
    static final int FACTORY_ID = 0x6D75_6373; // "mucs"
    static final int TYPE = 1;
    static final byte DATA = 0;
    static final byte HELLO = 1;
    static final byte HELLO_BACK = 2;
    static final byte FLUSH = 3;
    static final byte FLUSHED = 4;
    static final byte[] EMPTY = new byte[0];

    byte kind;
    long senderHigh;
    long senderLow;
    byte[] payload;

    ClusterEnvelope() {
    }

    ClusterEnvelope(byte kind, UUID sender, byte[] payload) {
        this.kind = kind;
        this.senderHigh = sender.getMostSignificantBits();
        this.senderLow = sender.getLeastSignificantBits();
        this.payload = payload;
    }

    UUID sender() {
        return new UUID(senderHigh, senderLow);
    }

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return TYPE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(kind);
        out.writeLong(senderHigh);
        out.writeLong(senderLow);
        out.writeByteArray(payload);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        kind = in.readByte();
        senderHigh = in.readLong();
        senderLow = in.readLong();
        payload = in.readByteArray();
    }
}
