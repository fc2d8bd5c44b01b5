package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NodeIdsTest {

    @Test
    void engineId_ofOpenfiresDefaultUuidId_isTheUuidText() {
        String uuid = UUID.randomUUID().toString();

        assertThat(NodeIds.engineId(uuid.getBytes(StandardCharsets.UTF_8))).isEqualTo(uuid);
        assertThat(NodeIds.bytes(uuid)).isEqualTo(uuid.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void engineId_ofAnAdministratorsIdOutsideTheAlphabet_isHexAndReversible() {
        byte[] raw = "node 1.example.org".getBytes(StandardCharsets.UTF_8);

        String id = NodeIds.engineId(raw);

        assertThat(id).isEqualTo("x:6e6f646520312e6578616d706c652e6f7267").matches("[A-Za-z0-9:-]+");
        assertThat(NodeIds.bytes(id)).isEqualTo(raw);
    }

    @Test
    void bytes_ofAPlainIdThatLooksEncoded_staysLiteral() {
        // "x:41" names "A", which is inside the alphabet, so "x:41" can only be a node literally called that
        assertThat(NodeIds.engineId("x:41".getBytes(StandardCharsets.UTF_8))).isEqualTo("x:41");
        assertThat(NodeIds.bytes("x:41")).isEqualTo("x:41".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void roundTrip_ofRandomBytesIncludingInvalidUtf8_isExact() {
        Random random = new Random(11);
        for (int i = 0; i < 1000; i++) {
            byte[] raw = new byte[1 + random.nextInt(40)];
            random.nextBytes(raw);

            String id = NodeIds.engineId(raw);

            assertThat(id).matches("[A-Za-z0-9:-]+");
            assertThat(NodeIds.bytes(id)).isEqualTo(raw);
        }
    }
}
