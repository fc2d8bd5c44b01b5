package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ListCompilerTest {

    private static final ScanState STATE = new ScanState();

    private static boolean matches(CompiledLists lists, String text) {
        STATE.prepare(lists);
        Scanner.scan(lists, text, 0, STATE);
        for (int m = 0; m < STATE.matchCount; m++) {
            if (!STATE.beatenByAllow(m)) {
                return true;
            }
        }
        return false;
    }

    /** Pseudo-words of realistic length, for large lists (deterministic). */
    static List<ListEntry> syntheticEntries(int count, long seed) {
        Random r = new Random(seed);
        List<ListEntry> out = new ArrayList<>(count);
        String consonants = "bcdfghjklmnpqrstvwxz";
        String vowels = "aeiouy";
        MatchMode[] modes = MatchMode.values();
        for (int i = 0; i < count; i++) {
            int len = 5 + r.nextInt(6);
            StringBuilder sb = new StringBuilder("q");
            for (int k = 1; k < len; k++) {
                sb.append(k % 2 == 0 ? consonants.charAt(r.nextInt(consonants.length())) : vowels.charAt(r.nextInt(vowels.length())));
            }
            out.add(new ListEntry(sb.toString(), Severity.values()[r.nextInt(3)], "en", modes[r.nextInt(2)], false, false,
                    "synthetic", i + 1));
        }
        return out;
    }

    @Test
    void compile_10000EntriesWithBuiltinList_keptAndMatching() {
        // How long this compile takes is a benchmark figure (FilterCpuBench, docs/benchmarks/filter.md), not a test.
        List<ListEntry> entries = syntheticEntries(10_000, 2);
        entries.addAll(WordLists.builtin("en"));
        CompiledLists lists = ListCompiler.compile(entries);
        assertThat(lists.report().entriesKept()).isGreaterThan(9_000);
        assertThat(lists.report().refused()).isEmpty();
        assertThat(matches(lists, "some " + entries.get(5).text() + " here")).isTrue();
        assertThat(matches(lists, "what the fuck")).isTrue();
        assertThat(matches(lists, "hello world, nothing to see here")).isFalse();
    }

    @Test
    void compile_100000Entries_completesAndMatches() {
        List<ListEntry> entries = syntheticEntries(100_000, 3);
        CompiledLists lists = ListCompiler.compile(entries, false);
        assertThat(matches(lists, "x " + entries.get(99_999).text() + (entries.get(99_999).mode() == MatchMode.PREFIX ? "ing" : "")))
                .isTrue();
        assertThat(matches(lists, "hello world, nothing to see here")).isFalse();
    }

    @Test
    void compile_digitOnlyEntry_refusedWithReason() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("69", "80085", "shit"));
        assertThat(lists.report().refused()).anySatisfy(r -> assertThat(r).contains("'69'").contains("only digits"));
        assertThat(lists.report().entriesKept()).isEqualTo(1);
        assertThat(matches(lists, "gg")).as("'69' folds to 'gg' but must never match").isFalse();
    }

    @Test
    void parse_emptyEntry_errorNamesLine() {
        assertThatThrownBy(() -> WordLists.parse(new StringReader("ok\n*\n"), "mylist.txt", "en", false))
                .hasMessageContaining("mylist.txt:2").hasMessageContaining("empty entry");
        assertThatThrownBy(() -> WordLists.parse(new StringReader("a;colour=red"), "l", "en", false))
                .hasMessageContaining("l:1").hasMessageContaining("unknown option");
        assertThatThrownBy(() -> WordLists.parse(new StringReader("@severity HUGE\nx"), "l", "en", false))
                .hasMessageContaining("severity must be LOW, MEDIUM or HIGH");
        assertThatThrownBy(() -> WordLists.parse(new StringReader("@language english\nx"), "l", "en", false))
                .hasMessageContaining("language must be an ISO 639 code");
    }

    @Test
    void compile_separatorOnlyEntry_refusedNotCrashing() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("...", "- - -", "\u200B\u200B", "shit"));
        assertThat(lists.report().refused()).hasSize(3).allSatisfy(r -> assertThat(r).contains("no letters"));
        assertThat(matches(lists, "... - - -")).isFalse();
        assertThat(matches(lists, "shit")).isTrue();
    }

    @Test
    void compile_emojiEntry_refusedNamingTheSymbol_letterLikeSymbolsKept() {
        // U+1F595 (middle finger), U+1F346 (aubergine) + "head", U+2620 (skull, in the BMP); U+24C8 (circled S) is a
        // letter in disguise and stays.
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("\uD83D\uDD95", "\uD83C\uDF46head", "\u2620",
                "\u24C8hit"));
        assertThat(lists.report().refused()).hasSize(3).allSatisfy(r -> assertThat(r).contains("emoji"));
        assertThat(lists.report().refused()).anySatisfy(r -> assertThat(r).contains("U+1F595"));
        assertThat(lists.report().refused()).anySatisfy(r -> assertThat(r).contains("U+1F346"));
        assertThat(lists.report().refused()).anySatisfy(r -> assertThat(r).contains("U+2620"));
        assertThat(lists.report().entriesKept()).isEqualTo(1);
        assertThat(matches(lists, "head")).as("the letters of an emoji entry must not be blocked alone").isFalse();
        assertThat(matches(lists, "\uD83D\uDD95 \uD83C\uDF46head")).isFalse();
        assertThat(matches(lists, "shit")).isTrue();

        // A flag is two regional indicators; they fold to letters in messages ("🇫 🇺 🇨 🇰"), but an entry "🇺🇸" must
        // not become the word "us".
        CompiledLists flag = ListCompiler.compile(Fixtures.entries("\uD83C\uDDFA\uD83C\uDDF8", "shit"));
        assertThat(flag.report().refused()).singleElement().satisfies(r -> assertThat(r).contains("U+1F1FA"));
        assertThat(matches(flag, "us")).isFalse();
    }

    @Test
    void compile_regexLikeCharacters_literalWithWarning() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("a.*b[c]", "(shit)", "x{2}"), false);
        assertThat(lists.report().warnings()).anySatisfy(w -> assertThat(w).contains("not patterns"));
        assertThat(matches(lists, "abc")).isTrue();
        assertThat(matches(lists, "aaab")).isFalse();
        assertThat(matches(lists, "shit")).isTrue();
    }

    @Test
    void compile_tooLongEntry_refused() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("a".repeat(65) + "b", "shit"));
        assertThat(lists.report().refused()).anySatisfy(r -> assertThat(r).contains("longer than 64"));
    }

    @Test
    void compile_entryInsideCommonWords_keptAsWholeWordWithWarning() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("ass*", "shit"));
        assertThat(lists.report().refused()).isEmpty();
        assertThat(lists.report().warnings()).anySatisfy(w -> assertThat(w).contains("'ass*'").contains("common en word")
                .contains("kept as a whole-word match"));
        assertThat(matches(lists, "assume the association")).as("Scunthorpe: the common words").isFalse();
        assertThat(matches(lists, "you ass")).isTrue();
        assertThat(matches(lists, "you a$$")).as("evasion folding inside the word").isTrue();
        assertThat(matches(lists, "you asshat")).as("no longer a prefix").isFalse();

        CompiledLists forced = ListCompiler.compile(Fixtures.entries("ass*;force", "shit"));
        assertThat(forced.report().warnings()).isEmpty();
        assertThat(matches(forced, "assume")).as("force keeps the prefix mode").isTrue();
    }

    @Test
    void compile_entriesThatAreCommonWords_keptAsWholeWordWithWarning() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("anal", "butt*", "sex", "xxx", "chat"));
        assertThat(lists.report().refused()).isEmpty();
        // "xxx" is kept without a warning: the shipped lexicon leaves out words the built-in lists block.
        for (String entry : new String[]{"'anal'", "'butt*'", "'sex'", "'chat'"}) {
            assertThat(lists.report().warnings()).as(entry).anySatisfy(w -> assertThat(w).contains(entry)
                    .contains("is the common en word").contains("kept as a whole-word match"));
        }
        for (String text : new String[]{"anal", "a.n.a.l", "4n4l", "nice butt", "nice bvtt", "sex", "s3x", "$ex", "xxx",
                "XXXX", "let's chat"}) {
            assertThat(matches(lists, text)).as(text).isTrue();
        }
        for (String text : new String[]{"analysis", "canal", "button", "buttress", "sexy", "Sussex", "xx", "x", "chatting"}) {
            assertThat(matches(lists, text)).as(text).isFalse();
        }
    }

    @Test
    void compile_letterWrittenThreeTimes_matchesAsWritten() {
        // The scanner reads a run as one or two copies; "xxx" is compiled as two and needs a three-char span.
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("xxx", "brrrap*"), false);
        assertThat(matches(lists, "xxx")).isTrue();
        assertThat(matches(lists, "xxxxxx")).isTrue();
        assertThat(matches(lists, "x.x.x")).isTrue();
        assertThat(matches(lists, "brrrapping")).isTrue();
        assertThat(matches(lists, "xx")).isFalse();
        assertThat(matches(lists, "brrap")).isFalse();
    }

    @Test
    void compile_swedishFanWithEnglish_refused_swedishAlone_kept() {
        List<ListEntry> sv = WordLists.builtin("sv");
        CompiledLists svOnly = ListCompiler.compile(sv);
        assertThat(svOnly.report().refused()).noneSatisfy(r -> assertThat(r).contains("'fan'"));

        List<ListEntry> both = new ArrayList<>(sv);
        both.addAll(WordLists.builtin("en"));
        CompiledLists mixed = ListCompiler.compile(both);
        assertThat(mixed.report().refused()).anySatisfy(r -> assertThat(r).contains("'fan'").contains("common en word 'fan'"));
        assertThat(mixed.report().refused()).anySatisfy(r -> assertThat(r).contains("'slut*'").contains("common sv word 'slut'"));
    }

    @Test
    void builtinLists_allLanguages_compileWithoutRefusalsInTheirOwnLanguage() {
        for (String language : WordLists.BUILTIN_LANGUAGES) {
            List<ListEntry> entries = new ArrayList<>(WordLists.builtin(language));
            entries.addAll(WordLists.builtinAllow());
            CompiledLists lists = ListCompiler.compile(entries);
            assertThat(lists.report().refused()).as(language).isEmpty();
            assertThat(lists.entryCount()).as(language).isGreaterThan(20);
        }
    }

    @Test
    void builtinLists_publicListTraps_notBlocked() {
        // Public lists contain these; the curated lists must not block them in their own language.
        for (String[] trap : new String[][]{{"es", "vamos"}, {"es", "bien"}, {"fr", "chat"}, {"en", "fan"}, {"pt", "comer"},
                {"it", "pesce"}, {"sv", "hård"}, {"de", "dick"}, {"es", "martillo"}, {"nl", "schatje"}}) {
            List<ListEntry> entries = new ArrayList<>(WordLists.builtin(trap[0]));
            entries.addAll(WordLists.builtinAllow());
            assertThat(matches(ListCompiler.compile(entries), trap[1])).as(trap[0] + " " + trap[1]).isFalse();
        }
    }

    @Test
    void compile_duplicatesAfterFolding_mergedKeepingHighestSeverity() {
        CompiledLists lists = ListCompiler.compile(Fixtures.entries("shit;severity=LOW", "SHIT;severity=HIGH", "sh1t"), false);
        assertThat(lists.report().entriesKept()).isEqualTo(1);
        assertThat(lists.entrySeverity).containsOnly(Severity.HIGH);
    }
}
