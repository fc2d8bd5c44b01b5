package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Hostile messages: never a crash, never a stall, correct results. */
class BadInputTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    private static FilterVerdict check(String text) {
        return filter.inspect("room@conference.example.org", text, null);
    }

    @Test
    void inspect_emptyAndNull_clean() {
        assertThat(check("")).isSameAs(FilterVerdict.CLEAN);
        assertThat(filter.inspect("r@c", null, null)).isSameAs(FilterVerdict.CLEAN);
        assertThat(filter.inspect(null, "hello", "")).isSameAs(FilterVerdict.CLEAN);
    }

    @Test
    @Timeout(10)
    void inspect_64kMessages_correctAndFast() {
        String clean = "the quick brown fox jumps over the lazy dog ".repeat(1490);
        assertThat(clean.length()).isGreaterThan(64_000);
        assertThat(check(clean).clean()).isTrue();
        String dirty = clean.substring(0, 32_000) + " fuck " + clean.substring(32_000);
        FilterVerdict v = check(dirty);
        assertThat(v.matches()).singleElement().satisfies(m -> assertThat(m.start()).isEqualTo(32_001));
        assertThat(v.maskedBody()).hasSize(dirty.length()).contains(" **** ");
        // Worst cases for the scanner: one long word, all single letters, all separators, all stretched.
        assertThat(check("a".repeat(65_536)).clean()).isTrue();
        assertThat(check("a ".repeat(32_768)).clean()).isTrue();
        assertThat(check(".".repeat(65_536)).clean()).isTrue();
        assertThat(check("1".repeat(65_536)).clean()).isTrue();
        assertThat(check("f u c k ".repeat(8_000)).matches()).isNotEmpty();
    }

    @Test
    void inspect_loneSurrogates_treatedAsSeparators() {
        assertThat(check("\uD800").clean()).isTrue();
        assertThat(check("\uDC00fuck\uD800").action()).isEqualTo(Action.MASK);
        assertThat(check("fu\uD800ck").clean()).as("a lone surrogate is skipped like punctuation").isFalse();
        FilterVerdict v = check("\uD83D fuck \uDE00");
        assertThat(v.maskedBody()).isEqualTo("\uD83D **** \uDE00");
    }

    @Test
    void inspect_bidiOverrides_judgedAsShown() {
        // Issue 40: a client shows "fuck" here; the filter judges what it shows (RenderedReadingTest has the rest).
        assertThat(check("\u202Ekcuf\u202C").clean()).as("text is matched in the order shown").isFalse();
        assertThat(check("\u202Dfu\u202Ack\u202C").clean()).isFalse();
        assertThat(check("\u2067shit\u2069").clean()).isFalse();
    }

    @Test
    void inspect_emojiAndSymbols_noCrash() {
        assertThat(check("gg 🎮🔥 nice one 👍🏽").clean()).isTrue();
        assertThat(check("🖕 fuck 🖕").clean()).isFalse();
    }

    @Test
    @Timeout(20)
    void inspect_randomUnicode_neverThrows() {
        Random r = new Random(42);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 2_000; i++) {
            sb.setLength(0);
            int len = r.nextInt(200);
            for (int k = 0; k < len; k++) {
                sb.append((char) r.nextInt(65536));
            }
            check(sb.toString());
            filter.inspect("r@c", sb, sb);
        }
    }
}
