package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PolicyTest {

    private static final List<ListEntry> LISTS = Fixtures.concat(Fixtures.entries(
            "fuck*;severity=HIGH", "damn;severity=LOW", "scheiße;language=de"), List.of());

    private static ContentFilter filter(FilterConfig.Builder b, PolicyStore store) {
        return ContentFilter.start(b.builtinLists(false).entries(LISTS).languages("en").build(), store, FilterListener.NONE);
    }

    @Test
    void inspect_defaultMask_masksAndKeepsRest() {
        try (ContentFilter f = filter(FilterConfig.builder(), PolicyStore.inMemory())) {
            FilterVerdict v = f.inspect("a@muc.example.org", "well damn, fuck this", null);
            assertThat(v.action()).isEqualTo(Action.MASK);
            assertThat(v.delivered()).isTrue();
            assertThat(v.maskedBody()).isEqualTo("well ****, **** this");
            assertThat(v.senderError()).isNull();
        }
    }

    @Test
    void inspect_roomRules_exactBeatsGlob_globBeatsDefault() throws Exception {
        try (ContentFilter f = filter(FilterConfig.builder(), PolicyStore.inMemory())) {
            f.setRoomRules(List.of(
                    new RoomRule("lobby@muc.example.org", true, Action.FLAG, Set.of(), null, null),
                    new RoomRule("*@kids.example.org", true, Action.REJECT, Set.of(), Severity.LOW, "Keep it clean, please."),
                    new RoomRule("adults-*@muc.example.org", false, null, Set.of(), null, null),
                    new RoomRule("*@muc.example.org", true, Action.DROP, Set.of(), Severity.HIGH, null))).get();
            assertThat(f.inspect("lobby@muc.example.org", "fuck", null).action()).isEqualTo(Action.FLAG);
            assertThat(f.inspect("LOBBY@muc.example.org", "fuck", null).action()).as("case-insensitive").isEqualTo(Action.FLAG);
            FilterVerdict kids = f.inspect("room1@kids.example.org", "damn", null);
            assertThat(kids.action()).isEqualTo(Action.REJECT);
            assertThat(kids.delivered()).isFalse();
            assertThat(kids.senderError()).isEqualTo("Keep it clean, please.");
            assertThat(f.inspect("adults-1@muc.example.org", "fuck", null)).isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect("other@muc.example.org", "fuck", null).action()).isEqualTo(Action.DROP);
            assertThat(f.inspect("other@muc.example.org", "damn", null)).as("below HIGH threshold").isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect("x@elsewhere.org", "damn", null).action()).as("default").isEqualTo(Action.MASK);
        }
    }

    @Test
    void inspect_roomLanguages_onlyThoseListsApply() throws Exception {
        try (ContentFilter f = filter(FilterConfig.builder(), PolicyStore.inMemory())) {
            assertThat(f.inspect("a@muc", "so eine scheiße", null)).as("de not a default language").isSameAs(FilterVerdict.CLEAN);
            f.putRoomRule(new RoomRule("de-*@muc", true, null, Set.of("de"), null, null)).get();
            assertThat(f.inspect("de-1@muc", "so eine scheiße", null).action()).isEqualTo(Action.MASK);
            assertThat(f.inspect("de-1@muc", "fuck", null)).as("en not listed for this room").isSameAs(FilterVerdict.CLEAN);
        }
    }

    @Test
    void roomRules_fileStore_persistAndReload(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("policies.properties");
        try (ContentFilter f = filter(FilterConfig.builder(), new FilePolicyStore(file))) {
            f.putRoomRule(new RoomRule("*@kids.example.org", true, Action.REJECT, Set.of("en", "de"), Severity.LOW,
                    "No swearing; this is a kids' room = rules")).get();
            f.putRoomRule(RoomRule.action("lobby@muc", Action.FLAG)).get();
            f.putRoomRule(RoomRule.action("lobby@muc", Action.DROP)).get();
            f.removeRoomRule("nothing@muc").get();
        }
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).contains("room.1.pattern").contains("room.2.action=DROP");
        try (ContentFilter f = filter(FilterConfig.builder(), new FilePolicyStore(file))) {
            assertThat(f.roomRules()).hasSize(2);
            assertThat(f.roomRules().get(0).rejectMessage()).isEqualTo("No swearing; this is a kids' room = rules");
            assertThat(f.roomRules().get(0).languages()).containsExactlyInAnyOrder("en", "de");
            assertThat(f.inspect("lobby@muc", "fuck", null).action()).isEqualTo(Action.DROP);
            f.removeRoomRule("lobby@muc").get();
        }
        assertThat(new FilePolicyStore(file).load()).hasSize(1);
    }

    @Test
    void fileStore_invalidFile_clearError(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("p.properties");
        Files.writeString(file, "room.1.pattern=a@b\nroom.1.action=EXPLODE\n");
        assertThatThrownBy(() -> new FilePolicyStore(file).load()).hasMessageContaining("room.1 is invalid");
    }

    @Test
    void roomRule_badPattern_rejected() {
        assertThatThrownBy(() -> RoomRule.action("  ", Action.MASK)).hasMessageContaining("room pattern");
        assertThatThrownBy(() -> new RoomRule("a b", true, null, Set.of(), null, null)).hasMessageContaining("room pattern");
        assertThatThrownBy(() -> new RoomRule("a@b", true, null, Set.of("english"), null, null)).hasMessageContaining("ISO 639");
    }

    @Test
    void filter_disabled_everythingClean() {
        try (ContentFilter f = filter(FilterConfig.builder().enabled(false), PolicyStore.inMemory())) {
            assertThat(f.inspect("a@b", "fuck", "fuck")).isSameAs(FilterVerdict.CLEAN);
        }
    }

    @Test
    void listener_actionsPerRoomAndList_reported() {
        List<String> seen = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        FilterListener l = new FilterListener() {
            @Override
            public void onAction(String room, String list, Action action) {
                seen.add(room + " " + list + " " + action);
            }

            @Override
            public void onScan(long scanNs) {
                times.add(scanNs);
            }

            @Override
            public boolean timed() {
                return true;
            }
        };
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().builtinLists(false).entries(LISTS).build(),
                PolicyStore.inMemory(), l)) {
            f.inspect("a@muc", "fuck fuck damn", null);
            f.inspect("a@muc", "hello", null);
        }
        assertThat(seen).containsExactly("a@muc test MASK");
        assertThat(times).hasSize(2).allSatisfy(t -> assertThat(t).isPositive());
    }

    @Test
    void reconfigure_extraListFile_appliedAfterReload(@TempDir Path dir) throws Exception {
        Path list = dir.resolve("extra.txt");
        Files.writeString(list, "# operator list\n@severity HIGH\nzorgblat\n");
        try (ContentFilter f = filter(FilterConfig.builder().extraList(list), PolicyStore.inMemory())) {
            assertThat(f.inspect("a@muc", "you zorgblat", null).matches()).extracting(FilterMatch::list).containsExactly(list.toString());
            Files.writeString(list, "plonkwort\n");
            f.reload().get();
            assertThat(f.inspect("a@muc", "you zorgblat", null)).isSameAs(FilterVerdict.CLEAN);
            assertThat(f.inspect("a@muc", "you plonkwort", null).clean()).isFalse();
            Files.delete(list);
            assertThatThrownBy(() -> f.reload().get()).isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("cannot read word list");
            assertThat(f.inspect("a@muc", "you plonkwort", null).clean()).as("old snapshot stays after a failed compile").isFalse();
        }
    }
}
