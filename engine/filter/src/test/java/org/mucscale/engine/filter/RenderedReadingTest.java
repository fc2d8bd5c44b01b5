package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Text that a client shows in another order than it was sent (issue 40): a word written backwards under a bidi
 * override, and upside-down Latin. Each must be judged as shown; text whose controls are left open is refused.
 */
class RenderedReadingTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = Fixtures.filter(Fixtures.BASIC);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    private static FilterVerdict check(String text) {
        return filter.inspect("room@conference.example.org", text, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\u202Ekcuf\u202C", // right-to-left override ... pop directional formatting
            "you \u202Ekcuf\u202C off",
            "\u202Ek\u200Bc\u200Bu\u200Bf\u202C", // zero-width spaces inside the override
            "\u202Ek\u200Dc\u00ADu\u2060f\u202C",
            "\u2067\u202Ekcuf\u202C\u2069", // the override inside a right-to-left isolate
            "\u2068\u202Ekcuf\u2069", // the isolate's PDI closes the override too
            "fu\u202Ekc\u202C", // half the word reversed
            "\u202Etihs\u202C and \u202Eelohssa\u202C"})
    void inspect_wordReversedUnderOverride_matchesAsShown(String text) {
        FilterVerdict v = check(text);
        assertThat(v.clean()).as(text).isFalse();
        assertThat(v.action()).isEqualTo(Action.MASK);
    }

    @Test
    void inspect_overrideInSentence_masksTheShownWordAndKeepsTheControls() {
        FilterVerdict v = check("you are a \u202Ekcuf\u202C really");
        assertThat(v.matches()).extracting(FilterMatch::entry).containsExactly("fuck");
        assertThat(v.maskedBody()).isEqualTo("you are a \u202E****\u202C really");
    }

    @Test
    void inspect_prefixEntryReversedWithItsCompound_masksTheWholeShownWord() {
        // "fucking" shown; the prefix entry fuck* matches its start, the mask covers the whole word as shown
        assertThat(check("a \u202Egnikcuf\u202C day").maskedBody()).isEqualTo("a \u202E*******\u202C day");
        assertThat(check("\u202Egnikcuf\u202C").matches()).extracting(FilterMatch::entry).containsExactly("fuck");
    }

    @Test
    void inspect_overrideInSubject_matches() {
        FilterVerdict v = filter.inspect("room@conference.example.org", null, "topic: \u202Etihs\u202C");
        assertThat(v.matches()).extracting(FilterMatch::inSubject).containsExactly(true);
        assertThat(v.maskedSubject()).isEqualTo("topic: \u202E****\u202C");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\u202Dfine words\u202C", // left-to-right override: shown as sent
            "\u2067שלום\u2069 hello", // an isolated Hebrew word, as clients insert around names
            "\u2068Alice\u2069 joined",
            "\u202Ebuh\u202C is \u202Eecin\u202C"}) // reversed clean words
    void inspect_closedControlsAroundCleanShownText_staysClean(String text) {
        assertThat(check(text).clean()).as(text).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u202Ehello", "hello \u2067world", "\u202Bone\ntwo\u202C", "stray \u202C close",
            "stray \u2069 close"})
    void inspect_unbalancedControls_refusedWithOwnText(String text) {
        FilterVerdict v = check(text);
        assertThat(v.action()).as(text).isEqualTo(Action.REJECT);
        assertThat(v.matches()).extracting(FilterMatch::entry).containsExactly(ContentFilter.UNBALANCED_BIDI);
        assertThat(v.senderError()).contains("does not close");
    }

    @Test
    void inspect_unbalancedControlsWhenPolicyAllows_judgedAsShown() {
        try (ContentFilter lenient = ContentFilter.start(FilterConfig.builder().builtinLists(false)
                .entries(Fixtures.BASIC).refuseUnbalancedBidi(false).build(), FilterListener.NONE)) {
            assertThat(lenient.inspect(null, "\u202Ehello", null).clean()).isTrue();
            assertThat(lenient.inspect(null, "\u202Ekcuf", null).matches()).extracting(FilterMatch::entry)
                    .containsExactly("fuck");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ʞɔnɟ", "ꓘƆ∩Ⅎ", "ʇᴉɥs", "ssɐ", "ǝloɥssɐ", "ɥɔʇᴉq", "ʇunɔ"})
    void inspect_upsideDownLatin_matchesAndMasksWhole(String text) {
        FilterVerdict v = check(text);
        assertThat(v.clean()).as(text).isFalse();
        assertThat(v.maskedBody()).as(text).matches("\\*+");
    }

    @Test
    void inspect_upsideDownWordInSentence_masksOnlyThatWord() {
        assertThat(check("noʎ ʞɔnɟ").maskedBody()).isEqualTo("noʎ ****");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ɐ ʇnoqɐ sᴉ sᴉɥʇ", "Me dɔ wo", "Ɔkɔm de me", "the IPA for 'cot' is /kɔt/", "pun and dub",
            "ǝ is a schwa", "ʇxǝʇ uʍop ǝpᴉsdn"})
    void inspect_upsideDownOrTwiCleanText_staysClean(String text) {
        assertThat(check(text).clean()).as(text).isTrue();
    }

    @Test
    void inspect_maskedWordWithTrailingCombiningMarks_masksTheMarksToo() {
        // whole-word entries ("damn", "ass"): their match ends at the last letter, before the marks on it
        assertThat(check("damn\u0301\u0301 you").maskedBody()).isEqualTo("****** you");
        assertThat(check("what an ass\u0308").maskedBody()).isEqualTo("what an ****");
        // prefix entries were widened over the word, marks included, already
        assertThat(check("fuck\u0301 you").maskedBody()).isEqualTo("***** you");
    }
}
