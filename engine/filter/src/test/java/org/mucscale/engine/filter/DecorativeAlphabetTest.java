package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One test per "decorative" alphabet players use because filters miss them (issue 40), so that none regresses:
 * each spells a list entry that must be found and masked whole.
 */
class DecorativeAlphabetTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = Fixtures.filter(Fixtures.BASIC);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    private static void assertCaughtAndMasked(String text) {
        FilterVerdict v = filter.inspect("room@conference.example.org", text, null);
        assertThat(v.clean()).as("'%s' should be caught", text).isFalse();
        assertThat(v.maskedBody()).as(text).matches("\\*+");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ꜰᴜᴄᴋ", "ꜱʜɪᴛ", "ʙɪᴛᴄʜ"})
    void inspect_smallCapitals_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ⓕⓤⓒⓚ", "ⒻⓊⒸⓀ", "ⓢⓗⓘⓣ"})
    void inspect_circled_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"🄵🅄🄲🄺", "🅵🆄🅲🅺", "🅂🄷🄸🅃"})
    void inspect_squaredAndNegativeSquared_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"⒡⒰⒞⒦", "🄕🄤🄒🄚", "⒮⒣⒤⒯"})
    void inspect_parenthesized_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"𝐟𝐮𝐜𝐤", "𝔣𝔲𝔠𝔨", "𝒻𝓊𝒸𝓀", "𝕗𝕦𝕔𝕜", "𝚏𝚞𝚌𝚔", "𝗳𝘂𝗰𝗸", "𝙛𝙪𝙘𝙠", "𝓯𝓾𝓬𝓴"})
    void inspect_mathematicalAlphanumerics_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"🇫🇺🇨🇰", "🇸🇭🇮🇹"})
    void inspect_regionalIndicators_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ｆｕｃｋ", "ＦＵＣＫ", "ｓｈｉｔ"})
    void inspect_fullwidth_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fuсk" /* Cyrillic es */, "ѕһіt" /* Cyrillic dze, shha, i */, "ꓝuck" /* Lisu */})
    void inspect_uts39Confusables_caught(String text) {
        assertCaughtAndMasked(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ʞɔnɟ", "ꓘƆ∩Ⅎ", "ʇᴉɥs"})
    void inspect_upsideDown_caught(String text) {
        assertCaughtAndMasked(text);
    }
}
