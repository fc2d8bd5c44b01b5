package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** False-positive rate on clean chat with the curated English list: at most 1 in 10,000 lines. */
class CleanChatTest {

    @Test
    void inspect_cleanCorpus_falsePositiveRateAtMostOnePer10000() {
        List<String> corpus = CleanCorpus.generate(50_000, 20261122L);
        List<String> flagged = new ArrayList<>();
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE)) {
            for (String line : corpus) {
                FilterVerdict v = f.inspect("room@muc", line, null);
                if (!v.clean()) {
                    flagged.add(line + " -> " + v.matches());
                }
            }
        }
        assertThat(flagged.size()).as("flagged clean lines: %s", flagged).isLessThanOrEqualTo(corpus.size() / 10_000);
    }
}
