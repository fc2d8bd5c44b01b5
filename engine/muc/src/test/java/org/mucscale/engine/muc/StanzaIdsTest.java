package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StanzaIdsTest {
    @Test
    void next_acrossDigitCarries_sortsInGenerationOrderAsStrings() {
        StanzaIds ids = new StanzaIds("node", 1_700_000_000_000L);
        List<String> generated = new ArrayList<>();
        // 40 000 ids cross the carries from 1 to 2, 3 and 4 significant base-32 digits (32, 1024, 32768)
        for (int i = 0; i < 40_000; i++) {
            generated.add(ids.next());
        }
        List<String> sorted = new ArrayList<>(generated);
        sorted.sort(String::compareTo);
        assertThat(sorted).isEqualTo(generated);
        assertThat(generated).doesNotHaveDuplicates();
        assertThat(generated.get(0)).endsWith("-0000000000001");
        assertThat(generated.get(30)).endsWith("-000000000000z");
        assertThat(generated.get(31)).endsWith("-0000000000010");
        assertThat(generated).extracting(String::length).containsOnly(generated.get(0).length());
    }

    @Test
    void next_prefix_carriesNodeAndStartTime() {
        String id = new StanzaIds("n1", 32L).next();
        assertThat(id).isEqualTo("n1-10-0000000000001");
    }
}
