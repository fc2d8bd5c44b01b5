package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** One test per evasion class: each obfuscated form must be caught, and its masked text must hide it. */
class EvasionTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = ContentFilter.start(FilterConfig.builder().builtinLists(false).languages("en", "de", "ru")
                .entries(Fixtures.BASIC).build(), FilterListener.NONE);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    private static FilterVerdict check(String text) {
        return filter.inspect("room@conference.example.org", text, null);
    }

    private static void assertCaught(String text, String entry) {
        FilterVerdict v = check(text);
        assertThat(v.clean()).as("'%s' should match %s", text, entry).isFalse();
        assertThat(v.matches()).extracting(FilterMatch::entry).as(text).contains(entry);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fuck", "FUCK", "Fuck you", "what the fuck!", "fucking hell", "fucked"})
    void inspect_plainAndCase_matches(String text) {
        assertCaught(text, "fuck");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ｆｕｃｋ", "𝐟𝐮𝐜𝐤", "𝔣𝔲𝔠𝔨", "ⓕⓤⓒⓚ"})
    void inspect_compatibilityAndWidthForms_matches(String text) {
        assertCaught(text, "fuck");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fúck", "fück", "fûçk", "fu\u0301ck"})
    void inspect_diacritics_matches(String text) {
        assertCaught(text, "fuck");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fuсk" /* Cyrillic es */, "ѕhit" /* Cyrillic dze */, "shіt" /* Ukrainian i */,
            "аss" /* Cyrillic a */, "ѕһіt"})
    void inspect_confusableHomoglyphs_matches(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fu\u200Bck", "f\u200Cu\u200Dck", "fu\u00ADck", "\u202Efuck\u202C", "f\u2066uck\u2069", "fu\uFEFFck"})
    void inspect_zeroWidthAndFormatChars_matches(String text) {
        assertCaught(text, "fuck");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sh1t", "5h!t", "$hit", "a$$", "@ss", "a55", "b1tch", "8oobs", "b00bs", "sh|t", "cun7"})
    void inspect_leetspeak_matches(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"s.h.i.t", "s-h-i-t", "s_h_i_t", "s h i t", "f u c k", "f. u. c. k.", "fu.ck", "f*u*c*k",
            "you s h i t head", "b*i*t*c*h"})
    void inspect_separators_matches(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"s*h*i*t", "p*i*s*s", "n*i*g*g*e*r", "c*u*n*t", "S*H*I*T", "oh s*h*i*t!", "s.h*i.t",
            "s-h*i*t", "s * h * i * t", "s - h - i - t", "n * i . g * g . e * r", "f_u*c_k"})
    void inspect_asteriskBetweenEverySingleLetter_matches(String text) {
        // Issue 17: with the shipped English list (entries "shit*", "piss", "nigger*"), not a fixture.
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE)) {
            assertThat(f.inspect("r@muc", text, null).clean()).as(text).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"f*ck", "f**k", "sh*t", "s**t", "b*tch", "c**t", "a**hole", "F*CK YOU", "f*cking"})
    void inspect_selfCensoredAsterisks_matches(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"*emphasis*", "5*3=15", "**bold** text", "a * b", "note*", "*", "I * like * it", "x*y*z",
            "a - b - c", "2*3*4"})
    void inspect_asterisksOutsideWords_stayClean(String text) {
        assertThat(check(text).clean()).as(text).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fuuuuuck", "fuuuck", "shiiiiit", "asssss", "aaaassss", "boooobs", "fffuuuccckkk", "fuuuccck", "biiiitch"})
    void inspect_stretchedLetters_matches(String text) {
        assertThat(check(text).clean()).as(text).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"noob", "good", "butt", "book", "cool", "too", "sooo good", "the boss", "class", "pass",
            "grass", "mass effect", "loool", "heyyyy"})
    void inspect_doubledLettersAndLookalikes_stayClean(String text) {
        assertThat(check(text).clean()).as(text).isTrue();
    }

    @Test
    void inspect_sameSpanTwoEntries_reportedOnce() {
        try (ContentFilter f = Fixtures.filter(Fixtures.entries("shit*;severity=LOW", "*shit;severity=HIGH"))) {
            assertThat(f.inspect("r@muc", "oh shit", null).matches()).singleElement()
                    .satisfies(m -> assertThat(m.severity()).isEqualTo(Severity.HIGH));
        }
    }

    @Test
    void inspect_multiWordEntry_matchesAcrossSpaces() {
        assertCaught("give me a blow   job", "blow job");
        assertCaught("BLOW-JOB", "blow job");
    }

    @Test
    void inspect_ordinarySentences_matchPositionsExact() {
        // Plain words and single spaces take the scanner's letter loop; matches must start and end where they do in
        // the general path: at word starts after a space, across a space (multi-word entry), at the end of the text.
        assertThat(check("please give me a blow job now").maskedBody()).isEqualTo("please give me a **** *** now"); // whitespace kept
        assertThat(check("that ass was big").maskedBody()).isEqualTo("that *** was big");
        assertThat(check("you are so damn").maskedBody()).isEqualTo("you are so ****");
        assertThat(check("go fuuuucking away now").maskedBody()).isEqualTo("go ********** away now");
        assertThat(check("the class was good and the grass too").clean()).isTrue();
        assertThat(check("read dickens and visit scunthorpe").clean()).isTrue();
    }

    @Test
    void inspect_suffixEntry_matchesCompounds() {
        assertCaught("you motherfucker", "fucker");
    }

    @Test
    void inspect_germanEszett_foldsToDoubleS() {
        assertCaught("So eine Scheiße", "scheiße");
        assertCaught("so eine SCHEISSE", "scheiße");
    }

    @Test
    void inspect_cyrillicEntry_matchesCyrillicAndLatinLookalike() {
        assertCaught("ты сука", "сука");
        assertCaught("cукa blyat", "сука"); // Latin c and a among Cyrillic letters
    }

    @Test
    void inspect_mask_replacesOnlyMatchedCharsInOriginalText() {
        FilterVerdict v = check("oh s.h.i.t, that fuuuuck was 𝐟𝐮𝐜𝐤ing bad");
        assertThat(v.action()).isEqualTo(Action.MASK);
        assertThat(v.maskedBody()).isEqualTo("oh *******, that ******* was ******* bad"); // 𝐟𝐮𝐜𝐤: 4 code points
    }

    @Test
    void inspect_subject_isScannedAndMaskedSeparately() {
        FilterVerdict v = filter.inspect("r@c.example.org", "hello", "shit subject");
        assertThat(v.clean()).isFalse();
        assertThat(v.maskedBody()).isNull();
        assertThat(v.maskedSubject()).isEqualTo("**** subject");
        assertThat(v.matches()).singleElement().satisfies(m -> {
            assertThat(m.inSubject()).isTrue();
            assertThat(m.start()).isZero();
            assertThat(m.end()).isEqualTo(4);
        });
    }
}
