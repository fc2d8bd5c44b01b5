package org.mucscale.engine.filter;

import java.util.ArrayList;
import java.util.List;

/** Small fixed lists for tests that must not depend on the shipped lists. */
final class Fixtures {

    private Fixtures() {
    }

    static List<ListEntry> entries(String... lines) {
        List<ListEntry> out = new ArrayList<>();
        try {
            out.addAll(WordLists.parse(new java.io.StringReader(String.join("\n", lines)), "test", "en", false));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    static List<ListEntry> allow(String... lines) {
        try {
            return WordLists.parse(new java.io.StringReader(String.join("\n", lines)), "test-allow", "*", true);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A filter over exactly these entries (no shipped lists), masking by default. */
    static ContentFilter filter(List<ListEntry> entries) {
        return ContentFilter.start(FilterConfig.builder().builtinLists(false).entries(entries).build(), FilterListener.NONE);
    }

    static final List<ListEntry> BASIC = concat(entries(
            "fuck*;severity=HIGH", "*fucker;severity=HIGH", "shit*", "ass", "asshole*", "cunt*;severity=HIGH",
            "bitch*", "slut*", "boobs", "blow job", "cock*", "dick*", "damn;severity=LOW", "scheiße;language=de",
            "сука;language=ru"),
            allow("cocktail*", "cockpit*", "dickens", "scunthorpe", "shitake", "peacock*", "hancock"));

    static List<ListEntry> concat(List<ListEntry> a, List<ListEntry> b) {
        List<ListEntry> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
