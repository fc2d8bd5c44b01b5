package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The supplementary lookalike table (issue 17): evasions caught, Greek and Russian chat left alone. */
class LookalikeTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = ContentFilter.start(FilterConfig.builder().languages("en", "ru").build(), FilterListener.NONE);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    private static FilterVerdict check(String text) {
        return filter.inspect("room@conference.example.org", text, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"τits", "cocκ", "bіτch", "clіτoris", "ѕhiт", "fμck", "ТITS", "\uD835\uDED5its" /* bold tau */,
            "cuпt", "cocк", "shiτ head", "wнore"})
    void inspect_greekAndCyrillicLookalikesInLatinWords_caught(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ᴛɪᴛs", "ꜰᴜᴄᴋ", "ʙɪᴛᴄʜ", "\uD83C\uDD75\uD83C\uDD84\uD83C\uDD72\uD83C\uDD7A" /* negative squared */,
            "\uD83C\uDD55\uD83C\uDD64\uD83C\uDD52\uD83C\uDD5A" /* negative circled */,
            "\uD83C\uDDEB \uD83C\uDDFA \uD83C\uDDE8 \uD83C\uDDF0" /* regional indicators, spaced */, "ᶠᵘᶜᵏ", "sᶦᶫᶫʏ cᵘᶰᵗ"})
    void inspect_smallCapitalsEnclosedAndSuperscriptLetters_caught(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @Test
    void inspect_lookalikeReadsAsLatinOnlyInsideALatinWord() {
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().builtinLists(false).languages("en", "ru")
                .entries(Fixtures.entries("kot", "сука;language=ru")).build(), FilterListener.NONE)) {
            assertThat(f.inspect("r@muc", "кот", null).clean()).as("Russian 'cat' is not the Latin entry").isTrue();
            assertThat(f.inspect("r@muc", "kот", null).clean()).as("Latin k makes the word Latin").isFalse();
            assertThat(f.inspect("r@muc", "cукa", null).clean()).as("both readings kept: still сука").isFalse();
            // The scanner remembers a word without Latin letters up to its end, and looks again in the next word.
            assertThat(f.inspect("r@muc", "кот кот, кот", null).clean()).isTrue();
            assertThat(f.inspect("r@muc", "кот kот", null).clean()).isFalse();
            assertThat(f.inspect("r@muc", "кот-kот", null).clean()).isFalse();
        }
    }

    @Test
    void inspect_cleanGreekAndRussianSentences_notFlagged() throws IOException {
        List<String> flagged = new ArrayList<>();
        List<String> lines = resourceLines("clean-greek-russian.txt");
        assertThat(lines).hasSizeGreaterThan(40);
        for (String line : lines) {
            FilterVerdict v = check(line);
            if (!v.clean()) {
                flagged.add(line + " -> " + v.matches());
            }
        }
        assertThat(flagged).isEmpty();
    }

    @Test
    void inspect_russianCommonWords_notFlaggedByTheEnglishList() {
        List<String> flagged = new ArrayList<>();
        try (ContentFilter en = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE)) {
            for (String word : ListCompiler.commonWords("ru")) {
                FilterVerdict v = en.inspect("r@muc", word, null);
                if (!v.clean()) {
                    flagged.add(word + " -> " + v.matches());
                }
            }
        }
        assertThat(flagged).isEmpty();
    }

    @Test
    void table_everyRowNamesItsCharacterAndAddsAFolding() throws IOException {
        Map<Integer, String> confusables = Folding.loadConfusables();
        int rows = 0;
        for (String line : resourceLines("/org/mucscale/engine/filter/" + Folding.LOOKALIKES_RESOURCE)) {
            String[] cols = line.split("\t");
            assertThat(cols).as(line).hasSize(7);
            int cp = Integer.parseInt(cols[0], 16);
            assertThat(cols[1]).as(line).isEqualTo(new String(Character.toChars(cp)));
            assertThat(cols[2]).as(line).matches("[a-z]");
            assertThat(cols[3]).as(line).isIn("always", "mixed");
            assertThat(cols[4]).as(line).isEqualTo(Character.getName(cp));
            assertThat(cols[5]).as(line).isIn("issue-17", "shape", "block");
            assertThat(cols[6]).as(line).isNotBlank();
            String before = confusables.getOrDefault(cp, Folding.foldCompat(cols[1]));
            assertThat(before).as("%s is already folded to %s without the row", line, cols[2]).isNotEqualTo(cols[2]);
            assertThat(Character.UnicodeScript.of(cp) == Character.UnicodeScript.LATIN
                    || Character.UnicodeScript.of(cp) == Character.UnicodeScript.COMMON)
                    .as("rows of other scripts must be 'mixed': %s", line).isEqualTo(cols[3].equals("always"));
            rows++;
        }
        assertThat(rows).isGreaterThan(100);
    }

    private static List<String> resourceLines(String name) throws IOException {
        List<String> out = new ArrayList<>();
        try (InputStream in = LookalikeTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    out.add(line);
                }
            }
        }
        return out;
    }
}
