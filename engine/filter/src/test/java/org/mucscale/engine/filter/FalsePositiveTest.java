package org.mucscale.engine.filter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The Scunthorpe regression set: words that contain list entries but are not abuse. Zero false positives. */
class FalsePositiveTest {

    private static ContentFilter filter;

    @BeforeAll
    static void compile() {
        filter = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE);
    }

    @AfterAll
    static void close() {
        filter.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Scunthorpe", "Penistone", "assassin", "assassination", "classic", "classy", "Sussex",
            "Essex", "Middlesex", "cocktail", "cockpit", "peacock", "Hancock", "Dickens", "Dickinson", "shitake",
            "therapist", "analysis", "analyst", "canal", "grape", "scrape", "skyscraper", "title", "titan", "constitution",
            "hello", "shell", "Michelle", "passion", "compassion", "massive", "assume", "assignment", "bass", "embassy",
            "harass", "cumulative", "document", "circumstance", "pussycat", "butter", "button", "buttress", "arsenal",
            "cucumber", "sextant", "sextet", "Matsushita", "snigger", "niggle", "raccoon", "coonhound",
            "homework", "homophone", "Uranus", "shuttlecock", "bitcoin", "Bangkok",
            "I passed the class with a 69", "call me at 5318008", "score 80085", "gg wp", "noob", "good game",
            "the butt of the joke", "we need more mass", "sheriff", "Clitheroe", "spotify",
            "prickly pear", "tittle", "hotwife", "grassy", "glass", "Shitaki", "sushi", "twat"})
    void inspect_scunthorpeSet_clean(String text) {
        FilterVerdict v = filter.inspect("room@conference.example.org", text, null);
        if (text.equals("twat")) {
            assertThat(v.clean()).as("control: a real entry must still match").isFalse();
            return;
        }
        assertThat(v.clean()).as("'%s' flagged as %s", text, v.matches()).isTrue();
    }
}
