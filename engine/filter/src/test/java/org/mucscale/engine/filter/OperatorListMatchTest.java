package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 40, item 4: an operator list chooses how its plain entries match ({@code @match word|prefix}); a list in
 * the stock content-filter plugin's comma format matches word prefixes unless told otherwise, with the common-word
 * guard still on; the choice shows in the compile report and the CLI.
 */
class OperatorListMatchTest {

    private static WordLists.OperatorList parse(String text) throws Exception {
        return WordLists.parseList(new StringReader(text), "ops.txt", "en", false);
    }

    private static ContentFilter filter(Path list) {
        return ContentFilter.start(FilterConfig.builder().builtinLists(false).extraList(list).build(),
                FilterListener.NONE);
    }

    private static boolean caught(ContentFilter f, String text) {
        return !f.inspect("room@conference.example.org", text, null).clean();
    }

    @Test
    void commaFormat_plainEntriesMatchPrefixes_compoundsAndPluralsCaught(@TempDir Path dir) throws Exception {
        Path list = dir.resolve("contentfilter.txt");
        Files.writeString(list, "fuck,shit, motherfucker,ass\n");
        try (ContentFilter f = filter(list)) {
            for (String text : new String[]{"fuckface", "you shithead", "motherfuckers", "shits", "ass"}) {
                assertThat(caught(f, text)).as(text).isTrue();
            }
            // the Scunthorpe guard: "ass" is a prefix of common words, so it stays whole-word
            for (String text : new String[]{"I assume so", "an assassin", "assets", "class", "good game"}) {
                assertThat(caught(f, text)).as(text).isFalse();
            }
            assertThat(f.report().lists()).singleElement().asString().contains("4 entries")
                    .contains("content-filter comma format").contains("match as word prefixes")
                    .contains("the format's default");
            assertThat(f.report().warnings()).anySatisfy(w -> assertThat(w).contains("'ass'"));
        }
    }

    @Test
    void lineFormat_plainEntriesStayWholeWords_unlessMatchPrefix(@TempDir Path dir) throws Exception {
        Path words = dir.resolve("words.txt");
        Files.writeString(words, "fuck\nshit\n");
        try (ContentFilter f = filter(words)) {
            assertThat(caught(f, "fuck")).isTrue();
            assertThat(caught(f, "fuckface")).as("whole word by default").isFalse();
            assertThat(f.report().lists()).singleElement().asString().contains("one entry per line")
                    .contains("match whole words");
        }
        Path prefixes = dir.resolve("prefixes.txt");
        Files.writeString(prefixes, "@match prefix\nfuck\nshit\n");
        try (ContentFilter f = filter(prefixes)) {
            assertThat(caught(f, "fuckface")).isTrue();
            assertThat(caught(f, "shitheads")).isTrue();
            assertThat(f.report().lists()).singleElement().asString().contains("(@match prefix)");
        }
    }

    @Test
    void commaFormat_matchWord_keepsWholeWords() throws Exception {
        WordLists.OperatorList list = parse("@match word\nfuck,shit\n");
        assertThat(list.commaFormat()).isTrue();
        assertThat(list.plainMode()).isEqualTo(MatchMode.WHOLE_WORD);
        assertThat(list.entries()).extracting(ListEntry::mode).containsOnly(MatchMode.WHOLE_WORD);
    }

    @Test
    void explicitStars_keepTheirMode_inEitherFormat() throws Exception {
        List<ListEntry> entries = parse("*fucker,shit*,*cunt*,ass\n").entries();
        assertThat(entries).extracting(ListEntry::mode).containsExactly(MatchMode.SUFFIX, MatchMode.PREFIX,
                MatchMode.SUBSTRING, MatchMode.PREFIX);
        assertThat(parse("fuck\n*fucker\n").entries()).extracting(ListEntry::mode)
                .containsExactly(MatchMode.WHOLE_WORD, MatchMode.SUFFIX);
    }

    @Test
    void badMatchDirective_namesLineAndChoices() {
        assertThatThrownBy(() -> parse("@match anywhere\nfuck\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ops.txt:1").hasMessageContaining("'word' or 'prefix'");
    }

    @Test
    void cli_reportsHowEachListMatches(@TempDir Path dir) throws Exception {
        Path list = dir.resolve("contentfilter.txt");
        Files.writeString(list, "zorg,blarg\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = org.mucscale.engine.filter.cli.FilterCli.run(new String[]{"--list", list.toString(), "--no-builtin"},
                new BufferedReader(new StringReader("zorgface\n")), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("list: " + list + ": 2 entries, content-filter comma "
                + "format, plain entries match as word prefixes");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1\tMASK\tzorg");
    }
}
