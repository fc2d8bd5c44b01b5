package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The versions map's value format (NodeVersions): what later builds may append is ignored; this build is named; an
 * unreadable message is said once per node and wire version, with both versions, and counted every time.
 */
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

    @Test
    void unreadable_saidOncePerNodeAndVersion_withBothVersions_countedEveryTime() {
        java.util.Map<String, byte[]> entries = new java.util.concurrent.ConcurrentHashMap<>();
        ClusterMap map = new ClusterMap() { // the map's contents only: NodeVersions reads and writes nothing else
            @Override
            public void putAll(java.util.Map<String, byte[]> e) {
                entries.putAll(e);
            }

            @Override
            public java.util.Map<String, byte[]> getAll(java.util.Collection<String> keys) {
                java.util.Map<String, byte[]> out = new java.util.HashMap<>();
                keys.forEach(k -> {
                    if (entries.containsKey(k)) {
                        out.put(k, entries.get(k));
                    }
                });
                return out;
            }

            @Override
            public byte[] get(String key) {
                return entries.get(key);
            }

            @Override
            public void removeAll(java.util.Collection<String> keys) {
                keys.forEach(entries::remove);
            }

            @Override
            public java.util.Set<String> keys() {
                return entries.keySet();
            }
        };
        NodeVersions here = new NodeVersions(map, "a", new NodeVersions.Version(2, "1.0.0"));
        new NodeVersions(map, "b", new NodeVersions.Version(3, "1.1.0")).publish();
        String said = here.unreadable("b", "unknown cluster message kind 42", "a message of kind 42");
        assertThat(said).contains("node b, which runs 1.1.0 (wire version 3)")
                .contains("this node a runs 1.0.0 (wire version 2)").contains("unknown cluster message kind 42")
                .contains("Not handled: a message of kind 42");
        assertThat(here.unreadable("b", "again", "x")).as("said once").isNull();
        new NodeVersions(map, "b", new NodeVersions.Version(3, "1.1.1")).publish();
        assertThat(here.unreadable("b", "y", "x")).as("another build of b, same wire version: not said again")
                .isNull();
        new NodeVersions(map, "b", new NodeVersions.Version(4, "1.2.0")).publish();
        assertThat(here.unreadable("b", "x", "x")).as("another wire version of b: said again")
                .contains("1.2.0 (wire version 4)");
        assertThat(here.unreadableCount()).isEqualTo(4);
    }
}
