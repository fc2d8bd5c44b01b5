package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterMessageTaskTest {

    /** What Openfire's hazelcast plugin sends: its Serializable CallableTask holding our task in a field. */
    private record HazelcastLikeWrapper(ClusterMessageTask task) implements Serializable {
    }

    @AfterEach
    void uninstallAll() {
        ClusterMessageTask.install(null);
    }

    @Test
    void roundTrip_throughJavaSerialization_keepsSenderAndBytes() throws Exception {
        byte[] message = new byte[1 << 20];
        new Random(7).nextBytes(message);

        ClusterMessageTask back = roundTrip(new ClusterMessageTask("0b1c-node:a", message));

        assertThat(back.fromNode()).isEqualTo("0b1c-node:a");
        assertThat(back.message()).isEqualTo(message);
        assertThat(back.getResult()).isNull();
    }

    @Test
    void roundTrip_ofAnEmptyMessageAndNonAsciiSender_keepsThem() throws Exception {
        ClusterMessageTask back = roundTrip(new ClusterMessageTask("x:c3a9", new byte[0]));

        assertThat(back.fromNode()).isEqualTo("x:c3a9");
        assertThat(back.message()).isEmpty();
    }

    @Test
    void roundTrip_insideASerializableWrapper_asTheHazelcastPluginSendsIt() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new HazelcastLikeWrapper(new ClusterMessageTask("a", new byte[] {1, 2, 3})));
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            HazelcastLikeWrapper back = (HazelcastLikeWrapper) in.readObject();
            assertThat(back.task().fromNode()).isEqualTo("a");
            assertThat(back.task().message()).containsExactly(1, 2, 3);
        }
    }

    @Test
    void readExternal_withANegativeOrHugeLength_isRefusedNotAllocated() throws Exception {
        for (int length : new int[] {-1, ClusterMessageTask.MAX_MESSAGE_BYTES + 1}) {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(raw)) {
                out.writeUTF("a");
                out.writeInt(length);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(raw.toByteArray()))) {
                assertThatThrownBy(() -> new ClusterMessageTask().readExternal(in))
                        .isInstanceOf(InvalidObjectException.class)
                        .hasMessageContaining(Integer.toString(length));
            }
        }
    }

    /**
     * The receiving node deserializes this class by name with its own copy, from whatever mucscale build it runs (the
     * hazelcast plugin's ClusterClassLoader asks the loaded plugins on every load): a node of another build reads the
     * task only while the class's stream identity stays the same. Java serialization refuses a stream whose
     * serialVersionUID differs from the local class's ({@code InvalidClassException}), so it is frozen, with the
     * external layout below (what changes between builds is inside the bytes: the engine's versioned wire format).
     */
    @Test
    void streamIdentity_isFrozenForMixedVersionClusters() {
        java.io.ObjectStreamClass desc = java.io.ObjectStreamClass.lookup(ClusterMessageTask.class);
        assertThat(desc.getName()).isEqualTo("org.mucscale.openfire.ClusterMessageTask");
        assertThat(desc.getSerialVersionUID()).isEqualTo(1L);
        assertThat(desc.getFields()).as("Externalizable: no serialized fields").isEmpty();
    }

    @Test
    void writeExternal_layout_isUtfSenderLengthBytes() throws Exception {
        ByteArrayOutputStream viaTask = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(viaTask)) {
            new ClusterMessageTask("n1", new byte[] {9, 8}).writeExternal(out);
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(expected)) {
            DataOutputStream plain = new DataOutputStream(out);
            plain.writeUTF("n1");
            plain.writeInt(2);
            plain.write(new byte[] {9, 8});
            plain.flush();
        }
        assertThat(viaTask.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void run_withAReceiverInstalled_handsItSenderAndBytes() throws Exception {
        List<String> got = new ArrayList<>();
        ClusterMessageTask.install((from, message) -> got.add(from + ":" + message.length));

        roundTrip(new ClusterMessageTask("other", new byte[5])).run();

        assertThat(got).containsExactly("other:5");
    }

    @Test
    void run_withoutAReceiver_countsTheMessageAndReturns() throws Exception {
        long before = ClusterMessageTask.undelivered();

        roundTrip(new ClusterMessageTask("other", new byte[5])).run();
        roundTrip(new ClusterMessageTask("other", new byte[5])).run();

        assertThat(ClusterMessageTask.undelivered()).isEqualTo(before + 2);
    }

    @Test
    void uninstall_ofAReceiverThatWasReplaced_keepsTheNewOne() {
        List<String> got = new ArrayList<>();
        ClusterMessageTask.Receiver old = (from, message) -> got.add("old");
        ClusterMessageTask.Receiver current = (from, message) -> got.add("new");
        ClusterMessageTask.install(old);
        ClusterMessageTask.install(current);

        ClusterMessageTask.uninstall(old);
        new ClusterMessageTask("a", new byte[0]).run();

        assertThat(got).containsExactly("new");
    }

    private static ClusterMessageTask roundTrip(ClusterMessageTask task) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(task);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (ClusterMessageTask) in.readObject();
        }
    }
}
