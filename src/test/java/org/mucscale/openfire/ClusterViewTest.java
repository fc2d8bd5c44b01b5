package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterViewTest {

    @Test
    void new_view_isThisNodeAlone() {
        assertThat(new ClusterView("b").current()).containsExactly("b");
    }

    @Test
    void reset_toOpenfireMembers_addsThisNodeAndReportsOnlyChanges() {
        ClusterView v = new ClusterView("b");

        assertThat(v.reset(List.of("c", "a"))).containsExactly("a", "b", "c");
        assertThat(v.reset(List.of("a", "b", "c"))).isNull();
        assertThat(v.current()).containsExactly("a", "b", "c");
    }

    @Test
    void joined_andLeft_changeTheViewOnce() {
        ClusterView v = new ClusterView("a");

        assertThat(v.joined("b")).containsExactly("a", "b");
        assertThat(v.joined("b")).isNull();
        assertThat(v.left("b")).containsExactly("a");
        assertThat(v.left("b")).isNull();
    }

    @Test
    void left_ofThisNode_isIgnored_alone_isHowThisNodeLeaves() {
        ClusterView v = new ClusterView("a");
        v.reset(List.of("a", "b"));

        assertThat(v.left("a")).isNull();
        assertThat(v.alone()).containsExactly("a");
        assertThat(v.alone()).isNull();
    }

    @Test
    void reportedViews_areImmutableSnapshots() {
        ClusterView v = new ClusterView("a");
        List<String> first = v.joined("b");
        v.joined("c");

        assertThat(first).containsExactly("a", "b");
        assertThat(v.current()).containsExactly("a", "b", "c");
    }
}
