package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The versions map's value format (NodeVersions): what later builds may append is ignored; this build is named. */
class NodeVersionsTest {

    @Test
    void decode_whatThisBuildWrites_readsBack() {
        NodeVersions.Version v = new NodeVersions.Version(NodeVersions.WIRE_VERSION, "1.2.3");
        assertThat(NodeVersions.decode(NodeVersions.encode(v))).isEqualTo(v);
    }

    @Test
    void decode_aLaterFormatWithMoreFields_readsTheFieldsItKnows() {
        byte[] later = new Codec.Out(64).u8(2).varint(3).string("2.0.0").string("a field of format 2").varint(7)
                .toBytes();
        assertThat(NodeVersions.decode(later)).isEqualTo(new NodeVersions.Version(3, "2.0.0"));
    }

    @Test
    void decode_formatZero_refused() {
        byte[] bad = new Codec.Out(8).u8(0).toBytes();
        assertThatThrownBy(() -> NodeVersions.decode(bad)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void build_isTheFilteredProjectVersion() {
        // the build runs from target/classes, where version.properties was filtered
        assertThat(NodeVersions.BUILD).isNotEqualTo("unknown").doesNotContain("${").matches("\\d+\\.\\d+.*");
    }

    @Test
    void headerOnly_ofAKindThisVersionDoesNotKnow_keepsItsPlaceOnTheLink() {
        byte[] future = new Codec.Out(32).u8(42).i64(-77L).varint(5).string("a body of another version").toBytes();
        assertThatThrownBy(() -> Wire.decode(future)).isInstanceOf(IllegalArgumentException.class);
        Wire.Message m = Wire.headerOnly(future);
        assertThat(m.kind()).isEqualTo(Wire.UNREADABLE);
        assertThat(m.epoch()).isEqualTo(-77L);
        assertThat(m.seq()).isEqualTo(5);
        assertThat(Wire.headerOnly(new byte[] {1, 2})).as("not even a header").isNull();
    }
}
