package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegistrationsTest {

    @Test
    void closeAll_afterSeveralPushes_releasesInReverseOrder() {
        List<String> released = new ArrayList<>();
        Registrations r = new Registrations((what, e) -> { });
        r.onClose("a", () -> released.add("a"));
        r.onClose("b", () -> released.add("b"));
        r.onClose("c", () -> released.add("c"));

        assertThat(r.closeAll()).isEmpty();
        assertThat(released).containsExactly("c", "b", "a");
        assertThat(r.size()).isZero();
    }

    @Test
    void closeAll_whenOneReleaseThrows_releasesTheRestAndReportsIt() {
        List<String> released = new ArrayList<>();
        List<String> reported = new ArrayList<>();
        Registrations r = new Registrations((what, e) -> reported.add(what + ":" + e.getMessage()));
        r.onClose("first", () -> released.add("first"));
        r.onClose("broken", () -> {
            throw new IllegalStateException("boom");
        });
        r.onClose("last", () -> released.add("last"));

        assertThat(r.closeAll()).containsExactly("broken");
        assertThat(released).containsExactly("last", "first");
        assertThat(reported).containsExactly("broken:boom");
    }

    @Test
    void closeAll_calledTwice_releasesOnlyOnce() {
        List<String> released = new ArrayList<>();
        Registrations r = new Registrations((what, e) -> { });
        r.onClose("x", () -> released.add("x"));

        r.closeAll();
        r.closeAll();

        assertThat(released).containsExactly("x");
    }

    @Test
    void push_returnsTheResourceForChaining() throws Exception {
        Registrations r = new Registrations((what, e) -> { });
        List<String> released = new ArrayList<>();
        AutoCloseable resource = () -> released.add("resource");

        assertThat(r.push("resource", resource)).isSameAs(resource);
        r.closeAll();
        assertThat(released).containsExactly("resource");
    }
}
